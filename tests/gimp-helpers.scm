; Script-Fu helpers for the GIMP 2.10 tests (tests/gimp-*.sh): GIMP
; 2.10's calls, and its own procedures' helpers.  The checks both GIMPs
; share are in tests/gimp-checks.scm.  The tests put both files in the
; Script-Fu path of their own GIMP configuration, so every batch command
; can use these definitions.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
;
; This program is free software: you can redistribute it and/or modify
; it under the terms of the GNU General Public License as published by
; the Free Software Foundation; either version 3 of the License, or
; (at your option) any later version.

(define (t-load file)
  (car (gimp-file-load RUN-NONINTERACTIVE file file)))

(define (t-drawable image)
  (car (gimp-image-get-active-drawable image)))

; The drawable's pixels in its own format (8/16-bit or float), no header.
(define (t-dump image file)
  (file-raw-save RUN-NONINTERACTIVE image (t-drawable image) file file))

; PREP: a precision to convert to, 'indexed, or 'group (the layer moved
; into a new layer group, which becomes the active drawable).
(define (t-prepare image prep)
  (cond ((eq? prep 'indexed)
         (gimp-image-convert-indexed image CONVERT-DITHER-NONE
                                     CONVERT-PALETTE-GENERATE 255
                                     FALSE FALSE ""))
        ((eq? prep 'group)
         (let ((layer (t-drawable image))
               (group (car (gimp-layer-group-new image))))
           (gimp-image-insert-layer image group 0 0)
           (gimp-image-reorder-item image layer group 0)
           (gimp-image-set-active-layer image group)))
        ((not (= prep (car (gimp-image-get-precision image))))
         (gimp-image-convert-precision image prep))))

; The procedure on one drawable, its arguments by position (mode and
; backend as numbers).
(define (t-run run-mode image drawable sigma mode backend)
  (plug-in-bm3d-denoise run-mode image drawable sigma mode backend))

; Saved values as gimp_set_data stores them (a vector of bytes).
(define (t-set-last-values bytes)
  (gimp-procedural-db-set-data "plug-in-bm3d-denoise"
                               (vector-length bytes) bytes))

; Raw export writes the image as it looks (a layer through its mask),
; so a drawable is dumped alone, through an image of its own.
(define (t-dump-drawable image drawable file)
  (let* ((copy (car (gimp-image-new-with-precision
                      (car (gimp-drawable-width drawable))
                      (car (gimp-drawable-height drawable))
                      (if (= TRUE (car (gimp-drawable-is-rgb drawable)))
                          RGB GRAY)
                      (car (gimp-image-get-precision image)))))
         (layer (car (gimp-layer-new-from-drawable drawable copy))))
    (gimp-image-insert-layer copy layer 0 0)
    (if (not (= -1 (car (gimp-layer-get-mask layer))))
        (gimp-layer-remove-mask layer MASK-DISCARD))
    (file-raw-save RUN-NONINTERACTIVE copy layer file file)
    (gimp-image-delete copy)))

; Denoise the layer mask (a copy of the layer, so it holds the noise) of
; IN's layer: the mask changes, the layer does not.
(define (t-denoise-mask in sigma mask-before mask-after layer-before
                        layer-after)
  (let* ((image (t-load in))
         (layer (t-drawable image))
         (mask (car (gimp-layer-create-mask layer ADD-MASK-COPY))))
    (gimp-layer-add-mask layer mask)
    (t-dump-drawable image mask mask-before)
    (t-dump-drawable image layer layer-before)
    (plug-in-bm3d-denoise RUN-NONINTERACTIVE image mask sigma 0 0)
    (t-dump-drawable image mask mask-after)
    (t-dump-drawable image layer layer-after)
    (gimp-image-delete image)))

; plug-in-bm3d-denoise-camera, as t-denoise does plug-in-bm3d-denoise.
(define (t-denoise-camera in prep selection run-mode strength chroma-strength
                          mode backend before after)
  (let ((image (t-load in)))
    (t-prepare image prep)
    (t-select image selection)
    (if before (t-dump image before))
    (plug-in-bm3d-denoise-camera run-mode image (t-drawable image)
                                 strength chroma-strength mode backend)
    (t-dump image after)
    (gimp-image-delete image)))

; plug-in-bm3d-denoise-camera, as t-try does plug-in-bm3d-denoise.
(define (t-try-camera in prep selection strength chroma-strength mode backend
                      before after)
  (let ((image (t-load in))
        (refused #f))
    (t-prepare image prep)
    (t-select image selection)
    (t-dump image before)
    (set! refused
          (catch #t
                 (plug-in-bm3d-denoise-camera RUN-NONINTERACTIVE image
                                              (t-drawable image) strength
                                              chroma-strength mode backend)
                 #f))
    (t-dump image after)
    (gimp-image-delete image)
    (gimp-message (if refused "t-outcome: refused" "t-outcome: accepted"))))
