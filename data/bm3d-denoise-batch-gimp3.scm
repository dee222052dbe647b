; BM3D Denoise for GIMP — denoise many files in one go, GIMP 3.
;
; Copyright (C) 2026 The BM3D Denoise for GIMP authors
;
; This program is free software: you can redistribute it and/or modify
; it under the terms of the GNU General Public License as published by
; the Free Software Foundation; either version 3 of the License, or
; (at your option) any later version.
;
; Every file matching PATTERN is loaded, its layer denoised with
; plug-in-bm3d-denoise (automatic backend) and saved under OUT-DIR with
; the same name, in the same format, with settings chosen for the photo
; (PNG by the project's own writer at zlib level 1, or the gimprc
; setting (bm3d-png-compression "N"), with its metadata;
; JPEG at the input's quality with its metadata; TIFF with the input's
; compression: README.md, "Many files at once").  MODE is 0 (BM3D),
; 1 (BM3D, first phase only), 2 (non-local means) or 3 (isoline).  From
; the command line; GIMP exits 0 when every file was done, 70 otherwise:
;
;   gimp-console-3.0 -i --quit --batch-interpreter=plug-in-script-fu-eval \
;     -b '(script-fu-bm3d-denoise-batch "/photos/*.png" 20.0 0
;                                       "/photos/denoised")'
;
; The whole list goes to one call of plug-in-bm3d-denoise-files, so GIMP
; starts the plug-in, and CUDA, once for the batch rather than once per
; image.  A file that cannot be read, denoised or written is told on one
; line and the others go on; the batch then fails at the end, saying how
; many failed.  Indexed images are skipped with a message (convert them
; to RGB first); a file that would overwrite an input is refused.
;
; GIMP 3's style: plug-in procedures (plug-in-bm3d-denoise-files,
; file-glob) are called with named arguments, in the version 3 dialect
; (#t and #f, values not wrapped in lists).
;
; GIMP 2.10 has its own script, bm3d-denoise-batch.scm: the calls of the
; two versions of GIMP differ.

(define (bm3d-batch-mode-nick mode)
  (list-ref '("bm3d" "bm3d-fast" "nlm" "isoline") mode))

(define (script-fu-bm3d-denoise-batch pattern sigma mode out-dir)
  (script-fu-use-v3)
  (let ((files (file-glob #:pattern pattern #:filename-encoding #f)))
    (if (null? files)
        (error "BM3D batch: no file matches" pattern))
    (plug-in-bm3d-denoise-files #:run-mode RUN-NONINTERACTIVE
                                #:files files
                                #:out-dir out-dir
                                #:noise "white"
                                #:sigma sigma
                                #:mode (bm3d-batch-mode-nick mode)
                                #:backend "auto")))

(script-fu-register-procedure "script-fu-bm3d-denoise-batch"
  "BM3D Denoise (batch)"
  (string-append "Denoise every file matching a pattern with BM3D and save "
                 "the results under an output folder, same names and formats")
  "The BM3D Denoise for GIMP authors"
  "2026"
  SF-STRING     "Files (pattern)"     "*.png"
  SF-ADJUSTMENT "Noise level (sigma)" '(25 0.1 255 1 5 1 0)
  SF-OPTION     "Method"              '("BM3D (two phases)"
                                        "BM3D, first phase only"
                                        "Non-local means"
                                        "Isoline")
  SF-DIRNAME    "Output folder"       "")
