; Script-Fu helpers shared by the GIMP 2.10 and the GIMP 3 tests
; (tests/gimp-*.sh, tests/gimp3-*.sh), beside the file of each GIMP's
; calls (tests/gimp-helpers.scm, tests/gimp3-helpers.scm): t-load,
; t-drawable, t-dump, t-prepare and t-run say how that GIMP loads, finds
; the drawable, dumps pixels, prepares an image and calls the procedure.
; The tests put both files in the Script-Fu path of their own GIMP
; configuration.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
;
; This program is free software: you can redistribute it and/or modify
; it under the terms of the GNU General Public License as published by
; the Free Software Foundation; either version 3 of the License, or
; (at your option) any later version.

; SELECTION: #f, or (x y width height).
(define (t-select image selection)
  (if selection
      (gimp-image-select-rectangle image CHANNEL-OP-REPLACE
                                   (car selection) (cadr selection)
                                   (caddr selection) (cadddr selection))))

; Denoise IN after preparing and selecting; dump the drawable before and
; after.  Any failure aborts the batch command.
(define (t-denoise in prep selection run-mode sigma mode backend before after)
  (let ((image (t-load in)))
    (t-prepare image prep)
    (t-select image selection)
    (if before (t-dump image before))
    (t-run run-mode image (t-drawable image) sigma mode backend)
    (t-dump image after)
    (gimp-image-delete image)))

; The same, then convert the result to PRECISION and dump it again (the
; PSNR of linear-light images is measured in the perceptual encoding).
(define (t-denoise-convert in prep sigma mode backend before after
                           precision converted)
  (let ((image (t-load in)))
    (t-prepare image prep)
    (t-dump image before)
    (t-run RUN-NONINTERACTIVE image (t-drawable image) sigma mode backend)
    (t-dump image after)
    (gimp-image-convert-precision image precision)
    (t-dump image converted)
    (gimp-image-delete image)))

; A call that may be refused: the error is caught so that the image can
; be dumped again and deleted; prints "t-outcome: refused" or
; "t-outcome: accepted" for the test to read.
(define (t-try in prep run-mode sigma mode backend before after)
  (let ((image (t-load in))
        (refused #f))
    (t-prepare image prep)
    (t-dump image before)
    (set! refused
          (catch #t
                 (t-run run-mode image (t-drawable image) sigma mode backend)
                 #f))
    (t-dump image after)
    (gimp-image-delete image)
    (gimp-message (if refused "t-outcome: refused" "t-outcome: accepted"))))
