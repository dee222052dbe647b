/* BM3D Denoise — writing an output without risking what is there (see
 * output_file.h).
 *
 * Copyright (C) 2026 The BM3D Denoise for GIMP authors
 *
 * This program is free software: you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.  */
#include "config.h"

#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *
path_folder (const char *path)
{
  const char *slash = strrchr (path, '/');
  size_t len;
  char *dir;

  if (!slash)
    return strdup (".");
  len = slash == path ? 1 : (size_t) (slash - path);
  dir = malloc (len + 1);
  if (dir)
    {
      memcpy (dir, path, len);
      dir[len] = '\0';
    }
  return dir;
}

const char *
path_base (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash ? slash + 1 : path;
}

mode_t
output_file_new_mode (void)
{
  mode_t mask = umask (0);

  umask (mask);
  return 0666 & ~mask;
}

int
output_file_is_input (const char *output, const char *input)
{
  struct stat out, in;

  return stat (output, &out) == 0 && stat (input, &in) == 0
         && out.st_dev == in.st_dev && out.st_ino == in.st_ino;
}

static void
signal_set (sigset_t *set)
{
  sigemptyset (set);
  sigaddset (set, SIGINT);
  sigaddset (set, SIGTERM);
  sigaddset (set, SIGHUP);
}

/* Creating the temporary file and telling `note` of it is one step as
 * far as a signal is concerned: no file the handler does not know of.  */
static int
create_temp (char *temp, OutputTempFunc note, void *data)
{
  sigset_t set, old;
  int fd, err;

  signal_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, &old);
  fd = mkstemp (temp);
  err = errno;
  if (fd >= 0 && note)
    note (temp, data);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  errno = err;
  return fd;
}

static void
forget_temp (OutputTempFunc note, void *data)
{
  sigset_t set, old;

  if (!note)
    return;
  signal_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, &old);
  note (NULL, data);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

/* What `output` names: a symbolic link is written through, as writing
 * in place would, so that the link stays a link.  Sets `st` and returns
 * 1 when a regular file is there, 0 when none is, 2 when something else
 * is (a device or a FIFO: written in place, there is nothing to keep),
 * -1 with the reason when it is a folder or a file we may not write.
 * `*dest` is newly allocated.  */
static int
destination_of (const char *output, char **dest, struct stat *st,
                char *error, size_t error_len)
{
  char *real = NULL;

  *dest = NULL;
  if (lstat (output, st) != 0)
    {
      *dest = strdup (output);
      return 0;
    }
  if (S_ISLNK (st->st_mode))
    {
      real = realpath (output, NULL);
      if (!real || stat (real, st) != 0)
        {
          /* Dangling: the link itself is replaced.  */
          free (real);
          *dest = strdup (output);
          return 0;
        }
    }
  if (S_ISDIR (st->st_mode))
    {
      snprintf (error, error_len, "%s: is a folder", output);
      free (real);
      return -1;
    }
  /* A file its owner made read-only is not replaced behind their back,
   * though the folder would allow the rename.  */
  if (S_ISREG (st->st_mode) && access (real ? real : output, W_OK) != 0)
    {
      snprintf (error, error_len, "%s: cannot write: %s", output,
                strerror (errno));
      free (real);
      return -1;
    }
  *dest = real ? real : strdup (output);
  return S_ISREG (st->st_mode) ? 1 : 2;
}

/* Root writing over a user's file gives it back to that user; others
 * cannot, and the file is theirs, as a new one would be.  */
static void
keep_owner (const char *temp, const struct stat *st)
{
  if ((st->st_uid != geteuid () || st->st_gid != getegid ())
      && chown (temp, st->st_uid, st->st_gid) != 0)
    return;
}

/* The new file's contents on the disk before its name replaces the old
 * one's: otherwise a crash soon after could leave an empty file.  */
static int
sync_file (const char *path)
{
  int fd = open (path, O_RDONLY);
  int status;

  if (fd < 0)
    return -1;
  status = fsync (fd);
  if (status != 0 && (errno == EINVAL || errno == EROFS))
    status = 0;   /* a file system without fsync: nothing more to do  */
  close (fd);
  return status;
}

int
output_file_write (const char *output, ImageFormat format, const Image *img,
                   const ImageWriteOptions *options, mode_t new_mode,
                   OutputTempFunc note_temp, void *data, char *error,
                   size_t error_len)
{
  struct stat st;
  char temp[PATH_MAX];
  char why[1024];
  char *dest, *dir;
  int exists, fd;

  exists = destination_of (output, &dest, &st, error, error_len);
  if (exists < 0)
    return -1;
  if (exists == 2)
    {
      free (dest);
      return image_write_with (output, format, img, options, error,
                               error_len);
    }
  dir = dest ? path_folder (dest) : NULL;
  if (!dir)
    {
      snprintf (error, error_len, "%s: out of memory", output);
      free (dest);
      return -1;
    }
  if (snprintf (temp, sizeof temp, "%s/.%s.XXXXXX", dir, path_base (dest))
      >= (int) sizeof temp)
    {
      snprintf (error, error_len, "%s: file name too long", output);
      free (dir);
      free (dest);
      return -1;
    }
  fd = create_temp (temp, note_temp, data);
  if (fd < 0)
    {
      snprintf (error, error_len, "%s: cannot create: %s", output,
                strerror (errno));
      free (dir);
      free (dest);
      return -1;
    }
  free (dir);
  close (fd);

  if (image_write_with (temp, format, img, options, why, sizeof why) < 0)
    {
      /* The message names the temporary file: name the output.  */
      size_t len = strlen (temp);
      const char *text = strncmp (why, temp, len) == 0 && why[len] == ':'
                         ? why + len + 2 : why;

      snprintf (error, error_len, "%s: %s", output, text);
      goto failed;
    }
  if (exists)
    keep_owner (temp, &st);
  if (chmod (temp, exists ? st.st_mode & 07777 : new_mode) != 0
      || sync_file (temp) != 0 || rename (temp, dest) != 0)
    {
      snprintf (error, error_len, "%s: cannot put the file in place: %s",
                output, strerror (errno));
      goto failed;
    }
  forget_temp (note_temp, data);
  free (dest);
  return 0;

failed:
  unlink (temp);
  forget_temp (note_temp, data);
  free (dest);
  return -1;
}

/* ---- the single writer's signals ---------------------------------------- */

static char signal_temp[PATH_MAX];
static volatile sig_atomic_t signal_temp_known;

static void
remove_temp_and_die (int sig)
{
  if (signal_temp_known)
    unlink (signal_temp);
  signal (sig, SIG_DFL);
  raise (sig);
}

void
output_file_guard_signals (void)
{
  struct sigaction action;

  memset (&action, 0, sizeof action);
  action.sa_handler = remove_temp_and_die;
  signal_set (&action.sa_mask);
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGTERM, &action, NULL);
  sigaction (SIGHUP, &action, NULL);
}

/* Called with the signals blocked (create_temp, forget_temp).  */
void
output_file_signal_note (const char *temp, void *data)
{
  (void) data;
  signal_temp_known = 0;
  if (temp)
    {
      snprintf (signal_temp, sizeof signal_temp, "%s", temp);
      signal_temp_known = 1;
    }
}
