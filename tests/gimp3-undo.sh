#!/bin/bash
# GIMP 3 with its windows, under a virtual display, driven through
# its Script-Fu console (tests/gimp-checks.sh, undo_session):
#  1. after the procedure, one undo (Ctrl+Z in the image window)
#     restores the image bit-exactly, and redo gives the result back;
#  2. the final run starts GIMP's progress bar and brings it to its end,
#     every value accepted (the plug-in's log of its calls to GIMP's
#     progress API, BM3D_PROGRESS_LOG);
#  3. a run ended during its final run, as GIMP ends a plug-in whose
#     progress is cancelled, leaves the image as it was;
#  4. the dialog has no Help button, and F1 in it opens no window.
# Skipped without xvfb-run, xdotool, dbus-run-session and ImageMagick's
# import.
#
# Copyright (C) 2026 The BM3D Denoise for GIMP authors
#
# This program is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 3 of the License, or
# (at your option) any later version.
. "${top_srcdir:-.}/tests/gimp3-lib.sh"

undo_test "$@"
