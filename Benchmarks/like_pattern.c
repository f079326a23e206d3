// The file system's own cost of a durable like's pattern of files, with none of our code: the
// writes and flushes a like makes, against the raw floor (one file written, flushed, renamed
// into place, its folder flushed) and against a like of two files (the image and a journal line
// that would carry the record). Interleaved, a median of each. Linux only (syncfs, setxattr).
//
//   cc -O2 -o like_pattern Benchmarks/like_pattern.c && ./like_pattern DIR [COUNT] [BYTES]
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void write_file(int dir, const char *name, const char *bytes, size_t count) {
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, bytes, count) != (ssize_t)count) { perror(name); exit(1); }
    close(fd);
}

static void append(int dir, const char *name, const char *bytes, size_t count, int note) {
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, bytes, count) != (ssize_t)count) { perror(name); exit(1); }
    if (note) {
        char length[24];
        int size = snprintf(length, sizeof length, "%lld", (long long)lseek(fd, 0, SEEK_END));
        fsetxattr(fd, "user.likes.journal-bytes", length, size, 0);
    }
    close(fd);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: like_pattern DIR [COUNT] [BYTES]\n"); return 64; }
    int count = argc > 2 ? atoi(argv[2]) : 200;
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 204800;
    char *image = malloc(bytes), record[900], line[420], recent[1200];
    for (size_t i = 0; i < bytes; i++) image[i] = (char)(i * 131 + 7);
    memset(record, 'r', sizeof record);
    memset(line, 'l', sizeof line);
    line[sizeof line - 1] = '\n';
    memset(recent, 'c', sizeof recent);
    recent[sizeof recent - 1] = '\n';
    mkdir(argv[1], 0700);
    int root = open(argv[1], O_RDONLY | O_DIRECTORY);
    mkdirat(root, "images", 0700), mkdirat(root, "records", 0700), mkdirat(root, "floor", 0700), mkdirat(root, "two", 0700);
    int images = openat(root, "images", O_RDONLY | O_DIRECTORY), records = openat(root, "records", O_RDONLY | O_DIRECTORY);
    int floor_dir = openat(root, "floor", O_RDONLY | O_DIRECTORY), two = openat(root, "two", O_RDONLY | O_DIRECTORY);
    double *three_files = calloc(count, sizeof(double)), *floor_times = calloc(count, sizeof(double)), *two_files = calloc(count, sizeof(double));
    sync();
    for (int i = 0; i < count; i++) {
        char name[64], temporary[64];
        // A like: the image, the record under a temporary name and renamed, the recent records,
        // the journal's line and its length, then one syncfs.
        double start = now_ms();
        snprintf(name, sizeof name, "p%d~gen.jpg", i);
        write_file(images, name, image, bytes);
        snprintf(temporary, sizeof temporary, "p%d~gen.tmp", i);
        snprintf(name, sizeof name, "p%d.json", i);
        write_file(records, temporary, record, sizeof record);
        renameat(records, temporary, records, name);
        append(root, "likes.recent", recent, sizeof recent, 0);
        append(root, "likes.journal", line, sizeof line, 1);
        syncfs(root);
        three_files[i] = now_ms() - start;
        // The floor: the image alone, flushed, renamed into place, its folder flushed.
        start = now_ms();
        snprintf(temporary, sizeof temporary, "f%d.tmp", i);
        snprintf(name, sizeof name, "f%d.jpg", i);
        int fd = openat(floor_dir, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, image, bytes) != (ssize_t)bytes) { perror("floor"); return 1; }
        fsync(fd);
        close(fd);
        renameat(floor_dir, temporary, floor_dir, name);
        fsync(floor_dir);
        floor_times[i] = now_ms() - start;
        // Two files: the image and a journal line that carries the record, then one syncfs.
        start = now_ms();
        snprintf(name, sizeof name, "t%d~gen.jpg", i);
        write_file(two, name, image, bytes);
        append(two, "likes.journal", record, sizeof record, 1);
        syncfs(two);
        two_files[i] = now_ms() - start;
    }
    qsort(three_files, count, sizeof(double), compare);
    qsort(floor_times, count, sizeof(double), compare);
    qsort(two_files, count, sizeof(double), compare);
    double three = three_files[count / 2], floor_ms = floor_times[count / 2], two_ms = two_files[count / 2];
    printf("{\"count\": %d, \"bytes\": %zu, \"likePatternMs\": %.3f, \"floorMs\": %.3f, \"twoFilesMs\": %.3f, "
           "\"likePatternRatio\": %.3f, \"twoFilesRatio\": %.3f}\n",
           count, bytes, three, floor_ms, two_ms, three / floor_ms, two_ms / floor_ms);
    return 0;
}
