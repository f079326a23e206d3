// See LinuxFileSystemCalls.h. Made through syscall(2), so that glibc and musl serve alike.

#include "LinuxFileSystemCalls.h"

#include <errno.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

long likes_file_system_magic(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return (long)info.f_type;
}

int likes_syncfs(int fd) { return (int)syscall(SYS_syncfs, fd); }

int likes_renameat2(int old_directory, const char *old_name, int new_directory, const char *new_name, unsigned int flags) {
    return (int)syscall(SYS_renameat2, old_directory, old_name, new_directory, new_name, flags);
}

int likes_set_attribute(int fd, const char *name, const void *value, unsigned long size) {
    return (int)syscall(SYS_fsetxattr, fd, name, value, size, 0);
}

long likes_get_attribute(int fd, const char *name, void *buffer, unsigned long size) {
    return (long)syscall(SYS_fgetxattr, fd, name, buffer, size);
}

int likes_name_thread(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

#else

long likes_file_system_magic(int fd) {
    (void)fd;
    errno = ENOSYS;
    return -1;
}

int likes_syncfs(int fd) {
    (void)fd;
    errno = ENOSYS;
    return -1;
}

int likes_renameat2(int old_directory, const char *old_name, int new_directory, const char *new_name, unsigned int flags) {
    (void)old_directory, (void)old_name, (void)new_directory, (void)new_name, (void)flags;
    errno = ENOSYS;
    return -1;
}

int likes_set_attribute(int fd, const char *name, const void *value, unsigned long size) {
    (void)fd, (void)name, (void)value, (void)size;
    errno = ENOSYS;
    return -1;
}

long likes_get_attribute(int fd, const char *name, void *buffer, unsigned long size) {
    (void)fd, (void)name, (void)buffer, (void)size;
    errno = ENOSYS;
    return -1;
}

int likes_name_thread(const char *name) {
    (void)name;
    errno = ENOSYS;
    return -1;
}

#endif
