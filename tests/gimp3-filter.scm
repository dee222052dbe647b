; Script-Fu helpers for tests/gimp3-filter.sh: BM3D as GIMP 3's
; non-destructive filter (the GEGL operation bm3d:denoise).  Loaded from
; the tests' Script-Fu path after tests/gimp3-helpers.scm.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
; GPL version 3 or later.

(define (t-filters layer)
  (car (gimp-drawable-get-filters layer)))

; One line for the test to read: "t-NAME: VALUE".
(define (t-say name value)
  (gimp-message (string-append "t-" name ": " value)))

; IN through plug-in-bm3d-denoise with keep-editable on (white noise of
; SIGMA, the CPU): the layer gets the filter and keeps its pixels.
; Dumps the image as it looks (SHOWN: the filter rendered) and with the
; filter switched off (HIDDEN: the layer's own pixels), then saves it as
; the XCF file XCF.
(define (t-filter-attach in sigma xcf shown hidden)
  (let* ((image (t-load in))
         (layer (t-drawable image)))
    (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE #:image image
                          #:drawables (vector layer) #:noise "white"
                          #:sigma sigma #:backend "cpu"
                          #:keep-editable TRUE)
    (t-say "filters" (number->string (vector-length (t-filters layer))))
    (t-dump image shown)
    (let ((filter (vector-ref (t-filters layer) 0)))
      (gimp-drawable-filter-set-visible filter FALSE)
      (t-dump image hidden)
      (gimp-drawable-filter-set-visible filter TRUE))
    (gimp-file-save RUN-NONINTERACTIVE image xcf -1)
    (gimp-image-delete image)))

; The XCF file XCF opened again: its filter, by operation and name, then
; merged into the layer (MERGED: the image after).
(define (t-filter-reopen xcf merged)
  (let* ((image (t-load xcf))
         (layer (t-drawable image))
         (filters (t-filters layer)))
    (t-say "reopened-filters" (number->string (vector-length filters)))
    (t-say "operation"
           (car (gimp-drawable-filter-get-operation-name
                  (vector-ref filters 0))))
    (t-say "name" (car (gimp-drawable-filter-get-name
                         (vector-ref filters 0))))
    (gimp-drawable-merge-filters layer)
    (t-say "merged-filters"
           (number->string (vector-length (t-filters layer))))
    (t-dump image merged)
    (gimp-image-delete image)))
