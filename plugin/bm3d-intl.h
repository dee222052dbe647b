/* BM3D Denoise for GIMP — translation macros for the plug-in and dialog.
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 */
#ifndef BM3D_INTL_H
#define BM3D_INTL_H

/* _() looks strings up in our own domain, not GIMP's: the plug-in's
 * catalogues are installed under GETTEXT_PACKAGE.  */
#include <glib/gi18n-lib.h>

#endif /* BM3D_INTL_H */
