; Script-Fu helpers for the GIMP 3 tests (tests/gimp3-*.sh): GIMP 3's
; calls (named arguments, choices by their nicks).  The checks both
; GIMPs share are in tests/gimp-checks.scm.  The tests put both files in
; the Script-Fu path of their own GIMP configuration: each batch command
; runs in a fresh interpreter, which loads them.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
;
; This program is free software: you can redistribute it and/or modify
; it under the terms of the GNU General Public License as published by
; the Free Software Foundation; either version 3 of the License, or
; (at your option) any later version.

(define (t-load file)
  (car (gimp-file-load RUN-NONINTERACTIVE file)))

(define (t-drawable image)
  (vector-ref (car (gimp-image-get-selected-drawables image)) 0))

; The drawable's pixels in its own format (8/16-bit or float), no header.
(define (t-dump image file)
  (file-raw-export #:run-mode RUN-NONINTERACTIVE #:image image #:file file))

; PREP: a precision to convert to, 'indexed, or 'group (the layer moved
; into a new layer group, which becomes the selected drawable).
(define (t-prepare image prep)
  (cond ((eq? prep 'indexed)
         (gimp-image-convert-indexed image CONVERT-DITHER-NONE
                                     CONVERT-PALETTE-GENERATE 255
                                     FALSE FALSE ""))
        ((eq? prep 'group)
         (let ((layer (t-drawable image))
               (group (car (gimp-group-layer-new image ""))))
           (gimp-image-insert-layer image group 0 0)
           (gimp-image-reorder-item image layer group 0)
           (gimp-image-set-selected-layers image (vector group))))
        ((not (= prep (car (gimp-image-get-precision image))))
         (gimp-image-convert-precision image prep))))

(define (t-run run-mode image drawable sigma mode backend)
  (if (eq? run-mode RUN-NONINTERACTIVE)
      (plug-in-bm3d-denoise #:run-mode run-mode #:image image
                            #:drawables (vector drawable) #:sigma sigma
                            #:mode mode #:backend backend)
      (plug-in-bm3d-denoise #:run-mode run-mode #:image image
                            #:drawables (vector drawable))))

; Two layers selected at once: refused.
(define (t-try-two in)
  (let* ((image (t-load in))
         (layer (t-drawable image))
         (copy (car (gimp-layer-copy layer)))
         (refused #f))
    (gimp-image-insert-layer image copy 0 0)
    (set! refused
          (catch #t
                 (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE
                                       #:image image
                                       #:drawables (vector layer copy)
                                       #:sigma 25.0)
                 #f))
    (gimp-image-delete image)
    (gimp-message (if refused "t-outcome: refused" "t-outcome: accepted"))))

; Raw export writes the image as it looks (a layer through its mask),
; so a drawable is dumped alone, through an image of its own.
(define (t-dump-drawable image drawable file)
  (let* ((copy (car (gimp-image-new-with-precision
                      (car (gimp-drawable-get-width drawable))
                      (car (gimp-drawable-get-height drawable))
                      (if (= TRUE (car (gimp-drawable-is-rgb drawable)))
                          RGB GRAY)
                      (car (gimp-image-get-precision image)))))
         (layer (car (gimp-layer-new-from-drawable drawable copy))))
    (gimp-image-insert-layer copy layer 0 0)
    ; No mask reads as -1.
    (if (< 0 (car (gimp-layer-get-mask layer)))
        (gimp-layer-remove-mask layer MASK-DISCARD))
    (t-dump copy file)
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
    (t-run RUN-NONINTERACTIVE image mask sigma "bm3d" "auto")
    (t-dump-drawable image mask mask-after)
    (t-dump-drawable image layer layer-after)
    (gimp-image-delete image)))
