; BM3D Denoise for GIMP — denoise many files in one go.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
;
; This program is free software: you can redistribute it and/or modify
; it under the terms of the GNU General Public License as published by
; the Free Software Foundation; either version 3 of the License, or
; (at your option) any later version.
;
; Every file matching PATTERN is loaded, its active layer denoised and
; saved under OUT-DIR with the same name, in the same format, on the
; automatic backend.  Two forms:
;
; - script-fu-bm3d-denoise-batch: white noise of one SIGMA (0: estimated
;   per file), plug-in-bm3d-denoise;
; - script-fu-bm3d-denoise-camera-batch: camera noise, measured on each
;   photo, times STRENGTH (and CHROMA-STRENGTH for the colour noise),
;   plug-in-bm3d-denoise-camera.
;
; From the command line:
;
;   gimp-console-2.10 -i -b '(script-fu-bm3d-denoise-batch
;       "/photos/*.png" 20.0 0 "/photos/denoised")' -b '(gimp-quit 0)'
;   gimp-console-2.10 -i -b '(script-fu-bm3d-denoise-camera-batch
;       "/photos/*.jpg" 1.0 1.0 0 "/photos/denoised")' -b '(gimp-quit 0)'
;
; Indexed images are skipped with a message (convert them to RGB first);
; a file that would overwrite its own input is refused.

(define (bm3d-batch-base-name path)
  ; The part after the last "/": the file's name without its folder.
  (let loop ((parts (strbreakup path "/")))
    (if (null? (cdr parts))
        (car parts)
        (loop (cdr parts)))))

; DENOISE is called with the image and its active drawable.
(define (bm3d-batch-one-file in-file denoise out-dir)
  (let ((out-file (string-append out-dir "/" (bm3d-batch-base-name in-file))))
    (if (string=? out-file in-file)
        (error "BM3D batch: refusing to overwrite the input" in-file))
    (let* ((image (car (gimp-file-load RUN-NONINTERACTIVE in-file in-file)))
           (drawable (car (gimp-image-get-active-drawable image))))
      (if (= TRUE (car (gimp-drawable-is-indexed drawable)))
          (gimp-message (string-append "BM3D batch: skipped (indexed image; "
                                       "convert it to RGB first): " in-file))
          (begin
            (denoise image drawable)
            (gimp-file-save RUN-NONINTERACTIVE image drawable
                            out-file out-file)))
      (gimp-image-delete image)
      out-file)))

(define (bm3d-batch-files pattern denoise out-dir)
  (let ((files (cadr (file-glob pattern 1))))
    (if (null? files)
        (error "BM3D batch: no file matches" pattern))
    (for-each (lambda (file)
                (bm3d-batch-one-file file denoise out-dir))
              files)))

(define (script-fu-bm3d-denoise-batch pattern sigma mode out-dir)
  (bm3d-batch-files pattern
                    (lambda (image drawable)
                      (plug-in-bm3d-denoise RUN-NONINTERACTIVE image drawable
                                            sigma mode 0))
                    out-dir))

(define (script-fu-bm3d-denoise-camera-batch pattern strength chroma-strength
                                             mode out-dir)
  (bm3d-batch-files pattern
                    (lambda (image drawable)
                      (plug-in-bm3d-denoise-camera RUN-NONINTERACTIVE image
                                                   drawable strength
                                                   chroma-strength mode 0))
                    out-dir))

(script-fu-register "script-fu-bm3d-denoise-batch"
  "BM3D Denoise (batch)"
  "Denoise every file matching a pattern with BM3D and save the results under an output folder, same names and formats"
  "The BM3D Denoise for GIMP authors"
  "The BM3D Denoise for GIMP authors"
  "2026"
  ""
  SF-STRING     "Files (pattern)"     "*.png"
  SF-ADJUSTMENT "Noise level (sigma)" '(25 0.1 255 1 5 1 0)
  SF-OPTION     "Method"              '("BM3D (two phases)"
                                        "BM3D, first phase only"
                                        "Non-local means"
                                        "Isoline")
  SF-DIRNAME    "Output folder"       "")

(script-fu-register "script-fu-bm3d-denoise-camera-batch"
  "BM3D Denoise, camera noise (batch)"
  "Denoise every photo matching a pattern with BM3D, measuring each one's camera noise, and save the results under an output folder, same names and formats"
  "The BM3D Denoise for GIMP authors"
  "The BM3D Denoise for GIMP authors"
  "2026"
  ""
  SF-STRING     "Files (pattern)"     "*.jpg"
  SF-ADJUSTMENT "Strength"            '(1 0.25 4 0.05 0.25 2 0)
  SF-ADJUSTMENT "Chroma strength"     '(1 0.25 4 0.05 0.25 2 0)
  SF-OPTION     "Method"              '("BM3D (two phases)"
                                        "BM3D, first phase only"
                                        "Non-local means"
                                        "Isoline")
  SF-DIRNAME    "Output folder"       "")
