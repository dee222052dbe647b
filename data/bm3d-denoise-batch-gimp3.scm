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
; the same name, in the same format.  MODE is 0 (BM3D), 1 (BM3D, first
; phase only), 2 (non-local means) or 3 (isoline).  From the command
; line; GIMP exits 0 when every file was done, 70 otherwise:
;
;   gimp-console-3.0 -i --quit --batch-interpreter=plug-in-script-fu-eval \
;     -b '(script-fu-bm3d-denoise-batch "/photos/*.png" 20.0 0
;                                       "/photos/denoised")'
;
; GIMP 3's style: plug-in procedures (plug-in-bm3d-denoise, file-glob)
; are called with named arguments, GIMP's own (gimp-file-load) in order,
; in the version 3 dialect (#t and #f, values not wrapped in lists).
; Indexed images are skipped with a message (convert them to RGB first);
; a file that would overwrite its own input is refused.
;
; GIMP 2.10 has its own script, bm3d-denoise-batch.scm: the calls of the
; two versions of GIMP differ.

(define (bm3d-batch-base-name path)
  ; The part after the last "/": the file's name without its folder.
  (let loop ((parts (strbreakup path "/")))
    (if (null? (cdr parts))
        (car parts)
        (loop (cdr parts)))))

(define (bm3d-batch-mode-nick mode)
  (list-ref '("bm3d" "bm3d-fast" "nlm" "isoline") mode))

(define (bm3d-batch-one-file in-file sigma mode out-dir)
  (let ((out-file (string-append out-dir "/" (bm3d-batch-base-name in-file))))
    (if (string=? out-file in-file)
        (error "BM3D batch: refusing to overwrite the input" in-file))
    (let* ((image (gimp-file-load RUN-NONINTERACTIVE in-file))
           (drawable (vector-ref (gimp-image-get-selected-drawables image) 0)))
      (if (gimp-drawable-is-indexed drawable)
          (gimp-message (string-append "BM3D batch: skipped (indexed image; "
                                       "convert it to RGB first): " in-file))
          (begin
            (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE
                                  #:image image
                                  #:drawables (vector drawable)
                                  #:sigma sigma
                                  #:mode (bm3d-batch-mode-nick mode)
                                  #:backend "auto")
            (gimp-file-save RUN-NONINTERACTIVE image out-file -1)))
      (gimp-image-delete image)
      out-file)))

(define (script-fu-bm3d-denoise-batch pattern sigma mode out-dir)
  (script-fu-use-v3)
  (let ((files (file-glob #:pattern pattern #:filename-encoding #f)))
    (if (null? files)
        (error "BM3D batch: no file matches" pattern))
    (for-each (lambda (file)
                (bm3d-batch-one-file file sigma mode out-dir))
              files)))

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
