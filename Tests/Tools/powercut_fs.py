"""A FUSE file system that forgets, at a simulated power cut, every byte not yet flushed.

It keeps the whole tree in memory. Each file has the bytes written to it and the bytes that were
on "disk" when it was last fsync'ed; each directory has its entries and the entries it had when
it was last fsync'ed (fsyncdir). A power cut puts every file and directory back to its flushed
state: a file never flushed is empty, a name whose directory was never flushed after it was
created, renamed or removed goes back to what that flush saw, and whatever is no longer reachable
is gone. That is the strictest reading of POSIX: nothing but fsync(2) of a file and of a
directory makes anything durable, and syncfs(2) reaches no FUSE server at all (the kernel does
not pass it on), as on sshfs, gocryptfs, rclone or ntfs-3g.

With `whole` set, the file system also plays one that `syncfs(2)` flushes whole (ext4, xfs):
an `fdatasync` of a directory, which is what `likes` sends in place of its `syncfs` when the
power-cut tests force that strategy on it (LIKES_TEST_FLUSH=syncfs), makes everything durable.
Such a file system also writes back on its own, in any order, so a cut may be `mixed`: each file
and directory then keeps, by the toss of a seeded coin, its current state or its flushed one.

The cut can be armed to fall just before the Nth mutating request (create, mkdir, write,
truncate, unlink, rmdir, rename, link, symlink, fsync, fsyncdir), so that a test can cut the power
at every step of a command in turn. From the cut on, every request fails with EIO (the disk is
gone) until `reboot()`; the kernel is told to cache nothing (zero timeouts, direct I/O), so that
what processes see after the reboot is what the "disk" kept.

Used by powercut.py; needs Debian's python3-pyfuse3 and fuse3, and /dev/fuse.
"""

import errno
import os
import stat
import threading
import time

import pyfuse3
import trio

# Mutating requests, in the order they reach the server; a cut may fall before any of them.
MUTATING = {
    "create", "mkdir", "write", "truncate", "unlink", "rmdir", "rename", "link", "symlink", "mknod", "fsync", "fsyncdir", "setxattr",
    "removexattr",
}


class Node:
    """A file, directory or symbolic link, with what is on "disk" beside what is current."""

    def __init__(self, ino, mode):
        self.ino = ino
        self.mode = mode
        now = time.time_ns()
        self.mtime = now
        self.ctime = now
        if stat.S_ISDIR(mode):
            self.entries = {}
            self.flushed_entries = {}
        else:
            self.data = bytearray()
            self.flushed_data = b""
            # Extended attributes live in the inode, flushed and lost with the data here.
            self.xattrs = {}
            self.flushed_xattrs = {}

    @property
    def is_dir(self):
        return stat.S_ISDIR(self.mode)

    def copy(self):
        other = Node.__new__(Node)
        other.__dict__ = {k: (dict(v) if isinstance(v, dict) else bytearray(v) if isinstance(v, bytearray) else v) for k, v in self.__dict__.items()}
        return other


class PowerCutFS(pyfuse3.Operations):
    def __init__(self):
        super().__init__()
        self.lock = threading.RLock()
        self.nodes = {pyfuse3.ROOT_INODE: Node(pyfuse3.ROOT_INODE, stat.S_IFDIR | 0o755)}
        self.next_ino = pyfuse3.ROOT_INODE + 1
        self.handles = {}
        self.next_handle = 1
        self.steps = 0  # mutating requests served since the last reset of the count
        self.cut_at = None  # cut before mutating request number cut_at
        self.dead = False
        self.log = []  # the mutating requests since the count was reset, as text
        self.cut_step = None  # where the last armed cut fell, if it did
        self.whole = False  # an fdatasync of a directory flushes everything (syncfs)
        self.mix = None  # a random.Random: the next cut keeps each node's current state or not

    # MARK: Control, called from the test's thread

    def count_steps(self):
        with self.lock:
            self.steps = 0
            self.log = []

    def arm(self, step):
        """Cuts the power just before mutating request number `step` (0 is the first)."""
        with self.lock:
            self.steps = 0
            self.log = []
            self.cut_at = step
            self.cut_step = None

    def cut(self):
        """Cuts the power now: every unflushed byte and name is lost (or, with `mix`, each node's
        unflushed state is kept or lost by a coin), and every request fails."""
        with self.lock:
            self.cut_at = None
            self.dead = True
            for ino in sorted(self.nodes):
                node = self.nodes[ino]
                if self.mix is not None and self.mix.random() < 0.5:
                    continue  # written back before the cut
                if node.is_dir:
                    node.entries = dict(node.flushed_entries)
                elif hasattr(node, "data"):
                    node.data = bytearray(node.flushed_data)
                    node.xattrs = dict(node.flushed_xattrs)
            self._collect()
            # What survived is what the disk holds now.
            self.flush_everything()

    def reboot(self):
        with self.lock:
            self.dead = False
            self.cut_at = None
            self.handles.clear()

    def flush_everything(self):
        """What a clean shutdown would leave: all that is current becomes durable."""
        with self.lock:
            for node in self.nodes.values():
                if node.is_dir:
                    node.flushed_entries = dict(node.entries)
                elif hasattr(node, "data"):
                    node.flushed_data = bytes(node.data)
                    node.flushed_xattrs = dict(node.xattrs)

    def snapshot(self):
        with self.lock:
            return {ino: node.copy() for ino, node in self.nodes.items()}, self.next_ino

    def restore(self, saved):
        with self.lock:
            nodes, _ = saved
            self.nodes = {ino: node.copy() for ino, node in nodes.items()}
            # Numbers are never reused: the kernel may still remember ones from before.
            self.handles.clear()
            self.dead = False
            self.cut_at = None

    def _collect(self):
        reachable = set()
        stack = [pyfuse3.ROOT_INODE]
        while stack:
            ino = stack.pop()
            if ino in reachable:
                continue
            reachable.add(ino)
            node = self.nodes[ino]
            if node.is_dir:
                stack.extend(node.entries.values())
        self.nodes = {ino: node for ino, node in self.nodes.items() if ino in reachable}

    # MARK: Plumbing

    def _step(self, what):
        """Every request passes here; a mutating one may be where the power goes."""
        if self.dead:
            raise pyfuse3.FUSEError(errno.EIO)
        kind = what.split(" ", 1)[0]
        if kind not in MUTATING:
            return
        if self.cut_at is not None and self.steps >= self.cut_at:
            self.cut_step = f"{self.steps} ({what})"
            self.cut()
            raise pyfuse3.FUSEError(errno.EIO)
        self.steps += 1
        self.log.append(what)

    def _node(self, ino):
        node = self.nodes.get(ino)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return node

    def _dir(self, ino):
        node = self._node(ino)
        if not node.is_dir:
            raise pyfuse3.FUSEError(errno.ENOTDIR)
        return node

    def _links(self, ino):
        node = self.nodes[ino]
        if node.is_dir:
            return 2 + sum(1 for child in node.entries.values() if self.nodes[child].is_dir)
        return max(1, sum(1 for other in self.nodes.values() if other.is_dir for child in other.entries.values() if child == ino))

    def _attr(self, ino):
        node = self.nodes[ino]
        attr = pyfuse3.EntryAttributes()
        attr.st_ino = ino
        attr.generation = 0
        attr.entry_timeout = 0
        attr.attr_timeout = 0
        attr.st_mode = node.mode
        attr.st_nlink = 1 if not node.is_dir else self._links(ino)
        attr.st_uid = os.getuid()
        attr.st_gid = os.getgid()
        attr.st_rdev = 0
        if node.is_dir:
            size = 4096
        else:
            size = len(node.data)
        attr.st_size = size
        attr.st_blksize = 4096
        attr.st_blocks = (size + 511) // 512
        attr.st_atime_ns = node.mtime
        attr.st_mtime_ns = node.mtime
        attr.st_ctime_ns = node.ctime
        return attr

    def _new(self, parent, name, mode):
        directory = self._dir(parent)
        if name in directory.entries:
            raise pyfuse3.FUSEError(errno.EEXIST)
        ino = self.next_ino
        self.next_ino += 1
        self.nodes[ino] = Node(ino, mode)
        directory.entries[name] = ino
        directory.mtime = time.time_ns()
        return ino

    def _handle(self, fh):
        entry = self.handles.get(fh)
        if entry is None:
            raise pyfuse3.FUSEError(errno.EIO)
        return entry

    def _open_handle(self, ino, flags):
        fh = self.next_handle
        self.next_handle += 1
        self.handles[fh] = (ino, flags)
        return fh

    # MARK: Requests

    async def lookup(self, parent_inode, name, ctx=None):
        with self.lock:
            self._step("lookup")
            directory = self._dir(parent_inode)
            if name == b".":
                return self._attr(parent_inode)
            ino = directory.entries.get(name)
            if ino is None:
                attr = pyfuse3.EntryAttributes()
                attr.st_ino = 0
                attr.entry_timeout = 0
                return attr
            return self._attr(ino)

    async def getattr(self, inode, ctx=None):
        with self.lock:
            self._step("getattr")
            self._node(inode)
            return self._attr(inode)

    async def setattr(self, inode, attr, fields, fh, ctx):
        with self.lock:
            node = self._node(inode)
            if fields.update_size:
                self._step(f"truncate {inode} {attr.st_size}")
                if attr.st_size < len(node.data):
                    del node.data[attr.st_size :]
                else:
                    node.data.extend(b"\0" * (attr.st_size - len(node.data)))
            else:
                self._step("setattr")
            if fields.update_mode:
                node.mode = (node.mode & ~0o7777) | (attr.st_mode & 0o7777)
            if fields.update_mtime:
                node.mtime = attr.st_mtime_ns
            node.ctime = time.time_ns()
            return self._attr(inode)

    async def readlink(self, inode, ctx):
        with self.lock:
            self._step("readlink")
            node = self._node(inode)
            if not stat.S_ISLNK(node.mode):
                raise pyfuse3.FUSEError(errno.EINVAL)
            return bytes(node.data)

    async def opendir(self, inode, ctx):
        with self.lock:
            self._step("opendir")
            self._dir(inode)
            return self._open_handle(inode, 0)

    async def readdir(self, fh, start_id, token):
        with self.lock:
            self._step("readdir")
            ino, _ = self._handle(fh)
            entries = sorted(self._dir(ino).entries.items())
            listing = [(name, child, self._attr(child)) for name, child in entries[start_id:]]
        for offset, (name, _, attr) in enumerate(listing):
            if not pyfuse3.readdir_reply(token, name, attr, start_id + offset + 1):
                break

    async def releasedir(self, fh):
        with self.lock:
            self.handles.pop(fh, None)

    async def fsyncdir(self, fh, datasync):
        with self.lock:
            ino, _ = self._handle(fh)
            self._step(f"fsyncdir {ino}" + (" (data)" if datasync else ""))
            directory = self._dir(ino)
            directory.flushed_entries = dict(directory.entries)
            if self.whole and datasync:
                self.flush_everything()  # the stand-in for syncfs

    async def mkdir(self, parent_inode, name, mode, ctx):
        with self.lock:
            self._step(f"mkdir {parent_inode}/{name.decode(errors='replace')}")
            return self._attr(self._new(parent_inode, name, stat.S_IFDIR | (mode & 0o7777)))

    async def mknod(self, parent_inode, name, mode, rdev, ctx):
        with self.lock:
            self._step(f"mknod {parent_inode}/{name.decode(errors='replace')}")
            return self._attr(self._new(parent_inode, name, mode))

    async def symlink(self, parent_inode, name, target, ctx):
        with self.lock:
            self._step(f"symlink {parent_inode}/{name.decode(errors='replace')}")
            ino = self._new(parent_inode, name, stat.S_IFLNK | 0o777)
            self.nodes[ino].data = bytearray(target)
            self.nodes[ino].flushed_data = bytes(target)
            return self._attr(ino)

    async def link(self, inode, new_parent_inode, new_name, ctx):
        with self.lock:
            self._step(f"link {inode} {new_parent_inode}/{new_name.decode(errors='replace')}")
            directory = self._dir(new_parent_inode)
            if new_name in directory.entries:
                raise pyfuse3.FUSEError(errno.EEXIST)
            if self._node(inode).is_dir:
                raise pyfuse3.FUSEError(errno.EPERM)
            directory.entries[new_name] = inode
            return self._attr(inode)

    async def unlink(self, parent_inode, name, ctx):
        with self.lock:
            self._step(f"unlink {parent_inode}/{name.decode(errors='replace')}")
            directory = self._dir(parent_inode)
            ino = directory.entries.get(name)
            if ino is None:
                raise pyfuse3.FUSEError(errno.ENOENT)
            if self.nodes[ino].is_dir:
                raise pyfuse3.FUSEError(errno.EISDIR)
            del directory.entries[name]
            directory.mtime = time.time_ns()

    async def rmdir(self, parent_inode, name, ctx):
        with self.lock:
            self._step(f"rmdir {parent_inode}/{name.decode(errors='replace')}")
            directory = self._dir(parent_inode)
            ino = directory.entries.get(name)
            if ino is None:
                raise pyfuse3.FUSEError(errno.ENOENT)
            child = self.nodes[ino]
            if not child.is_dir:
                raise pyfuse3.FUSEError(errno.ENOTDIR)
            if child.entries:
                raise pyfuse3.FUSEError(errno.ENOTEMPTY)
            del directory.entries[name]

    async def rename(self, parent_inode_old, name_old, parent_inode_new, name_new, flags, ctx):
        with self.lock:
            self._step(f"rename {parent_inode_old}/{name_old.decode(errors='replace')} {parent_inode_new}/{name_new.decode(errors='replace')}")
            source = self._dir(parent_inode_old)
            target = self._dir(parent_inode_new)
            moving = source.entries.get(name_old)
            if moving is None:
                raise pyfuse3.FUSEError(errno.ENOENT)
            replaced = target.entries.get(name_new)
            if flags & pyfuse3.RENAME_EXCHANGE:
                if replaced is None:
                    raise pyfuse3.FUSEError(errno.ENOENT)
                source.entries[name_old], target.entries[name_new] = replaced, moving
                return
            if replaced is not None:
                if flags & pyfuse3.RENAME_NOREPLACE:
                    raise pyfuse3.FUSEError(errno.EEXIST)
                if replaced == moving:
                    return
                old = self.nodes[replaced]
                if old.is_dir:
                    if not self.nodes[moving].is_dir:
                        raise pyfuse3.FUSEError(errno.EISDIR)
                    if old.entries:
                        raise pyfuse3.FUSEError(errno.ENOTEMPTY)
                elif self.nodes[moving].is_dir:
                    raise pyfuse3.FUSEError(errno.ENOTDIR)
            del source.entries[name_old]
            target.entries[name_new] = moving
            now = time.time_ns()
            source.mtime = target.mtime = now

    async def create(self, parent_inode, name, mode, flags, ctx):
        with self.lock:
            self._step(f"create {parent_inode}/{name.decode(errors='replace')}")
            ino = self._new(parent_inode, name, stat.S_IFREG | (mode & 0o7777))
            fh = self._open_handle(ino, flags)
            return pyfuse3.FileInfo(fh=fh, direct_io=True, keep_cache=False), self._attr(ino)

    async def open(self, inode, flags, ctx):
        with self.lock:
            self._step("open")
            node = self._node(inode)
            if node.is_dir:
                raise pyfuse3.FUSEError(errno.EISDIR)
            if flags & os.O_TRUNC:
                self._step(f"truncate {inode} 0")
                node.data = bytearray()
            return pyfuse3.FileInfo(fh=self._open_handle(inode, flags), direct_io=True, keep_cache=False)

    async def read(self, fh, off, size):
        with self.lock:
            self._step("read")
            ino, _ = self._handle(fh)
            return bytes(self._node(ino).data[off : off + size])

    async def write(self, fh, off, buf):
        with self.lock:
            ino, flags = self._handle(fh)
            self._step(f"write {ino} {len(buf)}")
            node = self._node(ino)
            if flags & os.O_APPEND:
                off = len(node.data)
            if off > len(node.data):
                node.data.extend(b"\0" * (off - len(node.data)))
            node.data[off : off + len(buf)] = buf
            node.mtime = time.time_ns()
            return len(buf)

    async def flush(self, fh):
        # close(2): nothing becomes durable.
        with self.lock:
            if self.dead:
                raise pyfuse3.FUSEError(errno.EIO)

    async def release(self, fh):
        with self.lock:
            self.handles.pop(fh, None)

    async def fsync(self, fh, datasync):
        with self.lock:
            ino, _ = self._handle(fh)
            self._step(f"fsync {ino}")
            node = self._node(ino)
            node.flushed_data = bytes(node.data)
            node.flushed_xattrs = dict(node.xattrs)

    # Extended attributes: only as the file system that syncfs flushes whole (ext4, xfs), so
    # that the other mode keeps testing stores on a file system without them.

    async def setxattr(self, inode, name, value, ctx):
        with self.lock:
            if not self.whole:
                raise pyfuse3.FUSEError(errno.ENOTSUP)
            self._step(f"setxattr {inode} {name.decode(errors='replace')}")
            node = self._node(inode)
            if node.is_dir or not hasattr(node, "xattrs"):
                raise pyfuse3.FUSEError(errno.ENOTSUP)
            node.xattrs[name] = bytes(value)

    async def getxattr(self, inode, name, ctx):
        with self.lock:
            if not self.whole:
                raise pyfuse3.FUSEError(errno.ENOTSUP)
            if self.dead:
                raise pyfuse3.FUSEError(errno.EIO)
            node = self._node(inode)
            value = getattr(node, "xattrs", {}).get(name)
            if value is None:
                raise pyfuse3.FUSEError(pyfuse3.ENOATTR)
            return value

    async def listxattr(self, inode, ctx):
        with self.lock:
            if not self.whole:
                raise pyfuse3.FUSEError(errno.ENOTSUP)
            return list(getattr(self._node(inode), "xattrs", {}).keys())

    async def removexattr(self, inode, name, ctx):
        with self.lock:
            if not self.whole:
                raise pyfuse3.FUSEError(errno.ENOTSUP)
            self._step(f"removexattr {inode} {name.decode(errors='replace')}")
            node = self._node(inode)
            if name not in getattr(node, "xattrs", {}):
                raise pyfuse3.FUSEError(pyfuse3.ENOATTR)
            del node.xattrs[name]

    async def statfs(self, ctx):
        with self.lock:
            self._step("statfs")
            data = pyfuse3.StatvfsData()
            data.f_bsize = 4096
            data.f_frsize = 4096
            data.f_blocks = 1 << 20
            data.f_bfree = 1 << 19
            data.f_bavail = 1 << 19
            data.f_files = 1 << 20
            data.f_ffree = 1 << 19
            data.f_favail = 1 << 19
            data.f_namemax = 255
            return data

    async def forget(self, inode_list):
        pass

    async def access(self, inode, mode, ctx):
        return True


class Mount:
    """Serves a PowerCutFS at `mountpoint` on a thread of its own until `close()`."""

    def __init__(self, mountpoint):
        self.mountpoint = mountpoint
        self.fs = PowerCutFS()
        options = set(pyfuse3.default_options)
        options.add("fsname=powercut")
        options.discard("default_permissions")
        pyfuse3.init(self.fs, mountpoint, options)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        trio.run(pyfuse3.main)

    def close(self):
        trio.from_thread.run_sync(pyfuse3.terminate, trio_token=pyfuse3.trio_token)
        self.thread.join(timeout=10)
        pyfuse3.close(unmount=True)
