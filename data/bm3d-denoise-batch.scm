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
; automatic backend.  The format's settings are chosen for the photo:
; PNG by the project's own writer at zlib level 1, or the level the
; gimprc setting (bm3d-png-compression "N") names, with its metadata; JPEG at the input's quality with its
; EXIF, ICC profile and comment; TIFF with the input's compression (see
; README.md, "Many files at once").  Two forms:
;
; - script-fu-bm3d-denoise-batch: white noise of one SIGMA (0: estimated
;   per file), as plug-in-bm3d-denoise;
; - script-fu-bm3d-denoise-camera-batch: camera noise, measured on each
;   photo, times STRENGTH (and CHROMA-STRENGTH for the colour noise), as
;   plug-in-bm3d-denoise-camera.
;
; From the command line:
;
;   gimp-console-2.10 -i -b '(script-fu-bm3d-denoise-batch
;       "/photos/*.png" 20.0 0 "/photos/denoised")' -b '(gimp-quit 0)'
;   gimp-console-2.10 -i -b '(script-fu-bm3d-denoise-camera-batch
;       "/photos/*.jpg" 1.0 1.0 0 "/photos/denoised")' -b '(gimp-quit 0)'
;
; The whole list goes to one call of plug-in-bm3d-denoise-files (or
; plug-in-bm3d-denoise-camera-files), so GIMP starts the plug-in, and
; CUDA, once for the batch rather than once per image.  A file that
; cannot be read, denoised or written is told on one line and the others
; go on; the batch then fails at the end, saying how many failed.
; Indexed images are skipped with a message (convert them to RGB first);
; a file that would overwrite an input is refused.

(define (bm3d-batch-files pattern)
  ; The files matching PATTERN as file-glob gives them: (count list).
  (let ((found (file-glob pattern 1)))
    (if (= 0 (car found))
        (error "BM3D batch: no file matches" pattern))
    found))

(define (script-fu-bm3d-denoise-batch pattern sigma mode out-dir)
  (let ((found (bm3d-batch-files pattern)))
    (plug-in-bm3d-denoise-files RUN-NONINTERACTIVE (car found) (cadr found)
                                out-dir sigma mode 0)))

(define (script-fu-bm3d-denoise-camera-batch pattern strength chroma-strength
                                             mode out-dir)
  (let ((found (bm3d-batch-files pattern)))
    (plug-in-bm3d-denoise-camera-files RUN-NONINTERACTIVE (car found)
                                       (cadr found) out-dir strength
                                       chroma-strength mode 0)))

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
