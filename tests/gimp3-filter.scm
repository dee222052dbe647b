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

; BM3D through plug-in-bm3d-denoise with keep-editable on (white noise
; of SIGMA, the CPU): the layer gets the filter and keeps its pixels.
(define (t-attach image layer sigma)
  (plug-in-bm3d-denoise #:run-mode RUN-NONINTERACTIVE #:image image
                        #:drawables (vector layer) #:noise "white"
                        #:sigma sigma #:backend "cpu" #:keep-editable TRUE))

; IN with the filter attached (t-attach).  Dumps the image as it looks
; (SHOWN: the filter rendered) and with the filter switched off (HIDDEN:
; the layer's own pixels), then saves it as the XCF file XCF.
(define (t-filter-attach in sigma xcf shown hidden)
  (let* ((image (t-load in))
         (layer (t-drawable image)))
    (t-attach image layer sigma)
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

; How many filters LAYER has, as text for t-say.
(define (t-filter-count layer)
  (number->string (vector-length (t-filters layer))))

; Says "t-ready: N", then waits until the file READY.N exists: the test's
; driver writes it once it has pressed Ctrl+Z in the image window.  Each
; look asks GIMP something, which leaves it free to answer the key; after
; about 200000 looks it gives up (the checks that follow then fail).
(define (t-wait-undo ready n)
  (let ((file (string-append ready "." (number->string n))))
    (t-say "ready" (number->string n))
    (let loop ((looks 0))
      (let ((port (open-input-file file)))
        (cond (port (close-input-port port))
              ((< looks 200000) (gimp-displays-flush) (loop (+ looks 1))))))))

; Undo, as a user does it: IN in a display, BM3D attached by
; plug-in-bm3d-denoise with keep-editable on, then one Edit > Undo
; (Ctrl+Z, pressed by the driver): UNDONE is the image after it, to
; equal BEFORE.  Then attached again and merged, and one undo: the filter
; is back, and with it switched off the layer's own pixels are
; MERGE-UNDONE.  READY: the driver's files (t-wait-undo).
(define (t-filter-undo in sigma before undone merge-undone ready)
  (let* ((image (t-load in))
         (layer (t-drawable image))
         (display (car (gimp-display-new image))))
    (t-dump image before)
    (t-attach image layer sigma)
    (t-say "undo-attached" (t-filter-count layer))
    (t-wait-undo ready 1)
    (t-say "undo-undone" (t-filter-count layer))
    (t-dump image undone)
    (t-attach image layer sigma)
    (gimp-drawable-merge-filters layer)
    (t-say "undo-merged" (t-filter-count layer))
    (t-wait-undo ready 2)
    (t-say "undo-merge-undone" (t-filter-count layer))
    (if (< 0 (vector-length (t-filters layer)))
        (gimp-drawable-filter-set-visible (vector-ref (t-filters layer) 0)
                                          FALSE))
    (t-dump image merge-undone)
    ; The last display of an image deletes the image too.
    (gimp-display-delete display)))

; IN through the dialog (RUN-INTERACTIVE: the test's driver sets it and
; presses OK).  Says TAG-filters and TAG-operation (the first filter's),
; dumps BEFORE (the image before), SHOWN (as it looks after), HIDDEN
; (every filter switched off: the layer's own pixels) and MERGED (the
; filters merged), and says TAG-merged-filters.
(define (t-filter-dialog in tag before shown hidden merged)
  (let* ((image (t-load in))
         (layer (t-drawable image)))
    (t-dump image before)
    (plug-in-bm3d-denoise #:run-mode RUN-INTERACTIVE #:image image
                          #:drawables (vector layer))
    (t-say (string-append tag "-filters") (t-filter-count layer))
    (if (< 0 (vector-length (t-filters layer)))
        (t-say (string-append tag "-operation")
               (car (gimp-drawable-filter-get-operation-name
                      (vector-ref (t-filters layer) 0)))))
    (t-dump image shown)
    (for-each (lambda (filter) (gimp-drawable-filter-set-visible filter FALSE))
              (vector->list (t-filters layer)))
    (t-dump image hidden)
    (for-each (lambda (filter) (gimp-drawable-filter-set-visible filter TRUE))
              (vector->list (t-filters layer)))
    (gimp-drawable-merge-filters layer)
    (t-say (string-append tag "-merged-filters") (t-filter-count layer))
    (t-dump image merged)
    (gimp-image-delete image)))
