// wasmscale file system: data structures and cross-file helpers of the core.
//
// The core is platform-neutral C11 with POSIX threads: it never sees Emscripten's syscall ABI
// (syscalls/ translates) and talks to the host only through src/platform/platform.h. Every
// core function returns a value >= 0 or a negative errno.
//
// Objects
//   ws_node   one file, directory, symlink, pipe or device: the inode. Reference counted;
//             each directory entry naming it holds one reference, each open description one,
//             each path walk in progress one. Freed at zero, so an unlinked open file stays
//             readable until its last descriptor closes.
//   ws_mount  one backend instance mounted at a directory (the root has no covered dir).
//   ws_file   one open file description (what open() creates and dup() shares): flags,
//             position, the node.
//   fd table  small integers to ws_file (fdtable.c).
//
// Lock order (a thread holding one may take only those below it):
//   1. rename_lock (namespace.c): one global mutex, held by every rename and by getcwd, so
//      a directory's name and parent change only under it
//   2. directory node locks: a parent before its child; two unrelated directories (rename)
//      in address order
//   3. a description's position (WS_FILE_POSITION_HELD: read/write/lseek/getdents on it)
//   4. file node lock (data and attributes)
//   5. leaf locks: pipe buffers, the fd table, the mount table, the console, fault injection
// Path walks hold one directory lock at a time (a read lock, while looking up one name) and
// take the next node's reference before dropping it.
#ifndef WASMSCALE_FS_INTERNAL_H
#define WASMSCALE_FS_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "core.h"
#include "rwlock.h"
#include "wasmscale/fs.h"

// ----- limits ------------------------------------------------------------------------------
#define WS_PATH_MAX 4096      // bytes including the terminating zero (ENAMETOOLONG beyond)
#define WS_NAME_MAX 255       // bytes of one path component
#define WS_SYMLINK_MAX 40     // symlinks followed in one walk (ELOOP beyond), as Linux
#define WS_FD_MAX 1024        // descriptors per program (EMFILE beyond), as RLIMIT_NOFILE
#define WS_PIPE_BYTES 65536   // pipe buffer, as Linux
#define WS_BLOCK_SIZE 4096    // st_blksize

typedef struct ws_node ws_node;
typedef struct ws_mount ws_mount;

// ----- backends ----------------------------------------------------------------------------
// What a directory listing yields, one entry at a time.
typedef struct ws_dirent {
  uint64_t ino;
  uint32_t type;  // S_IFMT bits of the entry's mode
  uint16_t length;
  char name[WS_NAME_MAX + 1];
} ws_dirent;

// Where a lazy file's bytes are (_ws_fs_create_lazy).
typedef struct ws_lazy_source {
  const char *url;
  uint64_t size;
} ws_lazy_source;

// A backend: a table of operations in the style of SQLite's VFS. The core checks permissions,
// types and existence before calling, holds the node locks the comments name, and calls only
// through backend.c (the choke point). Each returns 0 / a count, or -errno.
struct ws_fs_backend {
  const char *name;
  // Creates mount->root (a directory node with one reference, held by the mount).
  int (*mount)(ws_mount *mount, const char *options);
  // Namespace; `dir` locked (shared for lookup/readdir, exclusive otherwise).
  int (*lookup)(ws_node *dir, const char *name, size_t length, ws_node **child);  // child referenced
  int (*create)(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                ws_node **child);  // mode holds S_IFMT; target for symlinks; child referenced
  // A new name for `node`, which `from_dir` (locked by nobody) names `from`.
  int (*link)(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir, const char *from,
              size_t from_length);
  // Drops the entry's reference. `node`: what the core found `name` to name, under the same lock.
  int (*unlink)(ws_node *dir, const char *name, size_t length, ws_node *node);
  // Both directories locked exclusively; an existing `to` entry is replaced (checked by the core).
  int (*rename)(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                size_t to_length);
  // Entry number `cookie` or the next one after it: sets *next past it; 1 with an entry, 0 at end.
  int (*readdir)(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next);
  int (*readlink)(ws_node *link, char *buffer, size_t size);  // bytes, not zero-terminated
  // Optional: creates a lazy file, as create does a regular one (`dir` locked exclusively);
  // without it the backend holds none (the choke point answers ENOTSUP, EOPNOTSUPP's twin).
  int (*create_lazy)(ws_node *dir, const char *name, size_t length, uint32_t mode, const ws_lazy_source *source,
                     ws_node **child);
  // Optional: an open() of `node` (referenced, unlocked) is about to succeed in the core; the
  // backend may still refuse it (a host file it could not open, an OPFS file another tab holds).
  int (*open)(ws_node *node, int flags);
  // Data; the node locked shared for read, exclusive otherwise.
  int64_t (*read)(ws_node *file, void *buffer, size_t length, uint64_t offset);
  int64_t (*write)(ws_node *file, const void *buffer, size_t length, uint64_t offset);
  int (*truncate)(ws_node *file, uint64_t size);
  int (*sync)(ws_node *file);
  // fallocate: makes [offset, offset + length) take memory/disk now, growing the size to cover it.
  int (*allocate)(ws_node *file, uint64_t offset, uint64_t length);
  // Optional, for backends that store attributes (the host's disk): applies chmod's permission
  // bits, or utimensat's access and modification times (resolved: no UTIME_NOW or UTIME_OMIT),
  // before the core records them on the node (locked exclusively). A change the backend could
  // not make is an error, never a success.
  int (*set_mode)(ws_node *node, uint32_t mode);
  int (*set_times)(ws_node *node, const struct timespec times[2]);
  // The last reference is gone: free what the backend keeps for the node.
  void (*release)(ws_node *node);
  // The mount's last node is gone after it was unmounted: free mount->data (may be NULL).
  void (*unmount)(ws_mount *mount);
};

// ----- nodes -------------------------------------------------------------------------------
enum ws_device {
  WS_DEV_NONE,
  WS_DEV_NULL,
  WS_DEV_ZERO,
  WS_DEV_URANDOM,
  WS_DEV_STDIN,
  WS_DEV_STDOUT,
  WS_DEV_STDERR,
};

typedef struct ws_pipe ws_pipe;

struct ws_node {
  _Atomic uint32_t refs;
  ws_rwlock lock;
  ws_mount *mount;
  uint64_t ino;
  uint32_t type;   // S_IFMT bits: fixed at creation, so read without the lock
  // Attributes, under `lock`.
  _Atomic uint32_t mode;  // S_IFMT | permission bits (atomic: permission checks read it unlocked)
  uint32_t nlink;  // directory entries naming it (directories: 2 + subdirectories)
  uint64_t size;   // bytes (symlinks: target length)
  uint64_t blocks; // 512-byte units of data held
  struct timespec atime, mtime, ctime;
  _Atomic uint8_t time_marks;  // WS_MARK_*: times marked for update, set at the next stat
  // Directories: the containing directory (not a reference: a linked directory's parent
  // outlives it), NULL once removed; its name there, for getcwd. Both under rename_lock.
  ws_node *parent;
  char *name;
  _Atomic(ws_mount *) mounted;  // mount covering this directory, if any (set under the mount lock)
  // Directories: changes to their entries made by this process, counted under the write lock
  // (backend.c), so that a second lookup of a name under that lock can reuse the first one's
  // answer while nothing here changed the directory in between (_ws_lookup_again).
  uint32_t entry_changes;
  enum ws_device device;   // character devices
  ws_pipe *pipe;           // FIFOs
  struct ws_record_lock *locks;  // fcntl record locks (locks.c's mutex)
  void *data;              // the backend's
};

// A fresh node of `mount` with one reference; NULL when memory is short.
ws_node *_ws_node_new(ws_mount *mount, uint32_t mode);
void _ws_node_ref(ws_node *node);
// Records where a new directory lives (for ".." and getcwd); backends call it on creation.
int _ws_node_place(ws_node *dir, ws_node *parent, const char *name, size_t length);
void _ws_node_unref(ws_node *node);
// Marks ctime (and mtime if modified) for update. POSIX lets an implementation set marked
// times at a later "update point"; here that is the next stat (_ws_node_resolve_times), which
// keeps a clock call (a JS call in Wasm) out of every write.
enum { WS_MARK_CTIME = 1, WS_MARK_MTIME = 2 };
void _ws_node_touch(ws_node *node, bool modified);
void _ws_node_resolve_times(ws_node *node);  // with the node's write lock
// 0 if the caller may access `node` as `want` (R_OK | W_OK | X_OK bits), else -EACCES.
// wasmscale runs as one user that owns every file, so the owner bits decide.
int _ws_node_permits(const ws_node *node, int want);
// 0 if names may be added to directory `dir` (locked): it still exists (else -ENOENT) and the
// caller may write and search it (else -EACCES).
int _ws_dir_may_add(const ws_node *dir);
// 0 if directory `dir` (locked, shared or exclusive) holds nothing but . and .., else
// -ENOTEMPTY or the backend's error (namespace.c).
int _ws_dir_check_empty(ws_node *dir);

static inline bool ws_is_dir(const ws_node *node) { return node->type == S_IFDIR; }

// ----- mounts ------------------------------------------------------------------------------
struct ws_mount {
  uint32_t id;       // st_dev of its files
  const ws_fs_backend *backend;
  ws_node *root;
  ws_node *covered;  // the directory this mount hides (NULL for the root mount)
  const char *graft; // a graft (mount.c): its name in `covered`, which it hangs from, not hides
  _Atomic uint32_t open_files;  // open descriptions of its files (unmount: EBUSY)
  _Atomic uint32_t nodes;       // its nodes alive, the root among them
  _Atomic bool unmounted;       // set once unmounted: its last node's release frees the mount
  void *data;        // the backend's
};
// A node of `mount` is gone (_ws_node_unref): once the mount is unmounted, the last one frees it
// (a walk that passed through the mount may hold its nodes for a while after the unmount).
void _ws_mount_node_gone(ws_mount *mount);

// Sets up the root file system on first use (memory root, /dev, /tmp, fds 0-2). Thread safe;
// inline because every descriptor call checks it.
extern _Atomic bool _ws_fs_ready;
void _ws_fs_init_once(void);
// Every path and descriptor call starts here, so it is also where a thread makes sure its atomic
// accesses reach nodes and descriptions another thread put in memory it just grew (platform.h).
extern _Thread_local uintptr_t _ws_fs_seen_break;
static inline void _ws_fs_init(void) {
  if (!atomic_load_explicit(&_ws_fs_ready, memory_order_acquire)) _ws_fs_init_once();
  ws_prim_see_all_memory(&_ws_fs_seen_break);
}
// Mounts what `wasmscale-cc --mount` asked for (host/startup.c). mount.c refers to it weakly,
// so programs that mount no host directory link neither it nor the host backend.
// Over a host root it first moves to the start directory (the host's working directory, if the
// root holds it).
void _ws_fs_mount_startup_dirs(bool host_root);
// The root's host directory (--mount=/=HOST_DIR), mounted as `root`: 0, else > 0 when none was
// asked for or < 0 when it failed (said on stderr). Weak like the above (host/startup.c).
int _ws_fs_mount_startup_root(ws_mount *root);
// Makes the files `wasmscale-cc --embed-file` put in the program (embedded.c); weak like the
// above, and asked for by the driver only when there are some.
void _ws_fs_create_embedded_files(void);
// The backend linked.h names `name` ("host", "opfs"), or NULL where the program did not link it.
const ws_fs_backend *_ws_linked_backend(const char *name);
// Makes directory `path` and its missing parents (mkdir -p); 0 if it exists.
int _ws_make_dirs(const char *path, uint32_t mode);
ws_node *_ws_root(void);
ws_node *_ws_cwd(void);  // referenced
int _ws_set_cwd(ws_node *dir);
// What a looked-up node leads to: the root of a mount covering it, else itself. Takes and
// returns one reference.
ws_node *_ws_mount_traverse(ws_node *node);
// ".." of a directory: its parent, across mount boundaries; referenced, NULL once removed.
ws_node *_ws_mount_parent(ws_node *dir);
static inline bool ws_is_mount_root(const ws_node *node) { return node->mount->root == node; }
static inline bool ws_is_graft_root(const ws_node *node) {
  return ws_is_mount_root(node) && node->mount->graft != NULL;
}
// Grafts (mount.c): the root of the graft named `name` in `dir` (not referenced: grafts live as
// long as the program), else NULL; how many hang from `dir`; the index-th of them as an entry.
ws_node *_ws_graft_at(const ws_node *dir, const char *name, size_t length);
uint32_t _ws_graft_count(const ws_node *dir);
void _ws_graft_entry(const ws_node *dir, uint32_t index, ws_dirent *entry);

// ----- the backend choke point (backend.c) ---------------------------------------------------
int _ws_b_lookup(ws_node *dir, const char *name, size_t length, ws_node **child);
int _ws_b_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target, ws_node **child);
int _ws_b_create_lazy(ws_node *dir, const char *name, size_t length, uint32_t mode, const ws_lazy_source *source,
                     ws_node **child);
int _ws_b_link(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir, const char *from,
              size_t from_length);
int _ws_b_unlink(ws_node *dir, const char *name, size_t length, ws_node *node);
int _ws_b_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                size_t to_length);
int _ws_b_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next);
int _ws_b_readlink(ws_node *link, char *buffer, size_t size);
int _ws_b_open(ws_node *node, int flags);  // 0 for backends without the operation
int64_t _ws_b_read(ws_node *file, void *buffer, size_t length, uint64_t offset);
int64_t _ws_b_write(ws_node *file, const void *buffer, size_t length, uint64_t offset);
int _ws_b_truncate(ws_node *file, uint64_t size);
int _ws_b_sync(ws_node *file);
int _ws_b_allocate(ws_node *file, uint64_t offset, uint64_t length);
int _ws_b_set_mode(ws_node *node, uint32_t mode);  // 0 for backends without the operation
int _ws_b_set_times(ws_node *node, const struct timespec times[2]);

// ----- path resolution (path.c) --------------------------------------------------------------
enum {
  WS_WALK_NOFOLLOW = 1,  // do not follow a symlink in the last component
  WS_WALK_PARENT = 2,    // stop at the parent directory; return the last name
};

typedef struct ws_walk {
  ws_node *dir;   // parent directory (WS_WALK_PARENT), referenced
  ws_node *node;  // the node reached, referenced; NULL with WS_WALK_PARENT when the name is absent
  const char *name;  // WS_WALK_PARENT: last component inside the path given (not terminated)
  size_t length;     // its length; 0 for a path like "/" that has no last name
  bool trailing_slash;  // the path ended in '/': the last component must be a directory
  char *scratch;        // the path rewritten by symlinks (name may point into it)
  // WS_WALK_PARENT: node (or its absence) is the backend's own answer for the name, given while
  // `dir` had entry_changes == changes_seen (not ".", "..", a graft or a mount over the node).
  bool answered;
  uint32_t changes_seen;
} ws_walk;

// Resolves `path` relative to `at` (a directory node, or NULL for the working directory).
// On success the caller releases with _ws_walk_done.
int _ws_walk_path(ws_node *at, const char *path, int flags, ws_walk *walk);
void _ws_walk_done(ws_walk *walk);
// The same relative to a directory descriptor (or WS_AT_FDCWD).
int _ws_walk_at(int dirfd, const char *path, int flags, ws_walk *walk);
// A backend answers -ESTALE when the file a walk found was removed or replaced on the host
// before it could be used (host/backend.c opens files at their first use): a call that uses
// what a path names then resolves the path again, up to WS_STALE_RETRIES times, as Linux does
// for NFS. Usage: do error = call(...); while (ws_stale_again(error, &tries));
#define WS_STALE_RETRIES 4
static inline bool ws_stale_again(int error, int *tries) { return error == -ESTALE && (*tries)++ < WS_STALE_RETRIES; }
// A WS_WALK_PARENT walk whose walk->node is a symlink: walks again to the name its target
// gives (relative to the link's directory), as WS_WALK_PARENT. `target` receives the link's
// text and must outlive the walk (walk->name may point into it).
int _ws_walk_follow(ws_walk *walk, char target[WS_PATH_MAX]);
// The node `dirfd` names for *at calls: NULL for WS_AT_FDCWD or an absolute path; referenced.
int _ws_at_dir(int dirfd, const char *path, ws_node **at);
// Looks `name` up in `dir` (which the caller holds no lock on); follows mounts and "..".
int _ws_lookup_child(ws_node *dir, const char *name, size_t length, ws_node **child);
// With walk->dir locked for writing: the node walk->name names now, referenced, or -ENOENT
// (or the backend's error). Another thread may have changed the directory since the walk, so
// the name is looked up again, unless nothing in this process changed the directory's entries
// since the walk's own answer: then that answer stands (for a host directory, one a moment
// older than a new lookup's, as if the host's change had come after the call).
int _ws_lookup_again(const ws_walk *walk, ws_node **child);

// ----- open file descriptions and the fd table (fdtable.c) ----------------------------------
// refs: bits 0-29 count references; WS_FILE_POSITION_HELD is the lock on `position` (in the
// same word, so a read or write takes its reference and the position in one atomic operation);
// WS_FILE_POSITION_WAITING marks a thread asleep on the word, waiting for the position.
#define WS_FILE_REFS_MASK 0x3fffffffu
#define WS_FILE_POSITION_HELD 0x40000000u
#define WS_FILE_POSITION_WAITING 0x80000000u
typedef struct ws_file {
  _Atomic uint32_t refs;
  _Atomic int flags;  // O_ACCMODE and status flags (O_APPEND, O_NONBLOCK...)
  ws_node *node;      // referenced
  uint64_t position;  // bytes; for directories the next readdir cookie; under POSITION_HELD
  uint64_t lock_owner;  // record locks of this description (F_OFD_*): its identity
} ws_file;

ws_file *_ws_file_new(ws_node *node, int flags);  // takes the caller's node reference
void _ws_file_unref(ws_file *file);

enum { WS_FD_CLOEXEC = 1 };
int _ws_fd_install(ws_file *file, int minimum, int fd_flags);  // lowest free fd >= minimum or -EMFILE
int _ws_fd_install_at(ws_file *file, int fd, int fd_flags);    // dup2: replaces what fd held
ws_file *_ws_fd_get(int fd);  // referenced, or NULL (EBADF)
// Referenced and with the position held (one atomic operation when nobody else holds it),
// or NULL; _ws_file_put_position gives both back.
ws_file *_ws_fd_get_position(int fd);
void _ws_file_put_position(ws_file *file);
void _ws_file_hold_position(ws_file *file);     // on a description the caller references
void _ws_file_release_position(ws_file *file);  // keeps the reference
int _ws_fd_close(int fd);
int _ws_fd_get_flags(int fd);
int _ws_fd_set_flags(int fd, int fd_flags);

// ----- record locks (locks.c) ---------------------------------------------------------------
struct flock;
int _ws_locks_fcntl(ws_file *file, int command, struct flock *request);
int _ws_locks_flock(ws_file *file, int operation);  // LOCK_SH, LOCK_EX, LOCK_UN, | LOCK_NB
void _ws_locks_release(ws_node *node, uint64_t owner);  // a description's locks (last close)
void _ws_locks_release_process(ws_node *node);          // the process's (any close of the file)

// ----- data on nodes of any kind (io.c, devices.c, pipe.c) -----------------------------------
// `data` as the whole of file `path`: created with `mode` if missing, else truncated first.
int _ws_write_file(const char *path, const void *data, size_t length, uint32_t mode);
int64_t _ws_node_read(ws_file *file, ws_node *node, void *buffer, size_t length, uint64_t offset);
int64_t ws_node_write(ws_file *file, ws_node *node, const void *buffer, size_t length, uint64_t offset);
int64_t _ws_device_read(enum ws_device device, void *buffer, size_t length);
int64_t _ws_device_write(enum ws_device device, const void *buffer, size_t length);
int _ws_devices_create(ws_node *dev_dir);
void _ws_console_write(int stream, const char *data, size_t length);  // console.c
void _ws_console_flush(void);
void _ws_console_flush_at_abort(void);  // takes no lock it would wait for

ws_pipe *_ws_pipe_new(void);  // _ws_node_new makes one for every FIFO node
void _ws_pipe_open_end(ws_pipe *pipe, int access);
void _ws_pipe_close_end(ws_pipe *pipe, int access);
uint32_t _ws_pipe_peer_mark(ws_pipe *pipe, int access);
int _ws_pipe_await_peer(ws_pipe *pipe, int access, bool nonblocking, uint32_t seen);  // FIFO open
int64_t _ws_pipe_read(ws_pipe *pipe, void *buffer, size_t length, bool nonblocking);
int64_t _ws_pipe_write(ws_pipe *pipe, const void *buffer, size_t length, bool nonblocking);
short _ws_pipe_poll(ws_pipe *pipe, short events);
void _ws_pipe_destroy(ws_pipe *pipe);

#endif
