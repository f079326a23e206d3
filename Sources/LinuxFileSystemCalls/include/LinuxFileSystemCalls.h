// The Linux calls LikeKit needs that Swift's Glibc module leaves out (they need
// _GNU_SOURCE or sys/vfs.h). Called directly, not looked up by name: a fully static `likes`
// has no dynamic symbol table to look them up in. Elsewhere each fails with ENOSYS.

#ifndef LINUX_FILE_SYSTEM_CALLS_H
#define LINUX_FILE_SYSTEM_CALLS_H

/// The `f_type` magic number of the file system holding `fd` (`fstatfs`), or -1 with errno set.
long likes_file_system_magic(int fd);

/// `syncfs(fd)`: 0, or -1 with errno set.
int likes_syncfs(int fd);

/// `renameat2(old_directory, old_name, new_directory, new_name, flags)`: 0, or -1 with errno set.
int likes_renameat2(int old_directory, const char *old_name, int new_directory, const char *new_name, unsigned int flags);

/// `fsetxattr(fd, name, value, size, 0)`: 0, or -1 with errno set.
int likes_set_attribute(int fd, const char *name, const void *value, unsigned long size);

/// `fgetxattr(fd, name, buffer, size)`: the value's length, or -1 with errno set.
long likes_get_attribute(int fd, const char *name, void *buffer, unsigned long size);

/// Names the calling thread (`prctl(PR_SET_NAME)`, at most 15 bytes kept): 0, or -1 with errno set.
int likes_name_thread(const char *name);

#endif
