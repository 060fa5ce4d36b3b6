// The host-directory backend: a directory of the host mounted into the file system (on Node a
// real directory through Node's fs, natively the OS's own). Every operation is a synchronous
// host call made by the calling thread (src/platform/*/host), so any thread reads and writes
// host files without the main thread. The calls come from a table (platform.h's ws_host_io),
// so the same logic also serves the OPFS backend (../opfs/), whose calls go to OPFS's I/O worker.
//
// The boundary: every directory node holds its host directory (a descriptor), and every
// operation names one entry beneath a held directory, never following a symlink in it
// (platform.h). The core hands the backend single names, never "..", and follows symlinks
// itself within the virtual tree. So a directory node keeps meaning the host directory it was
// found as, wherever the host renames it, and nothing reached through the mount lies outside
// the mounted directory, whatever the host (or a second mount of the same directory) swaps in.
//
// Nodes: one ws_node per open host file (device and inode number) while anything references it,
// found through a table keyed by that identity, so two opens of one file share its size and
// locks. A regular file's host descriptor is opened at its first use (an open, a truncate, an
// attribute change), not by the lookup that found it: a stat or an unlink opens nothing. Until
// then the node keeps the name it was found as, and stays out of the table: nothing holds the
// file, so once it is removed its inode number may name a new file. Opening checks that the
// name still names the file and that no other node opened it meanwhile; if either fails the
// call answers ESTALE, which the core answers by resolving the path again (as Linux does for
// NFS). The descriptor is closed with the node.
// A node keeps no name (link() is given the name the program used); a directory node keeps
// its parent directory referenced, because the core's node->parent (for ".." and getcwd) must
// not outlive what it points at, and follows renames and removals. Attributes are read from
// the host when a node is made; later changes made behind the program's back (another process)
// are not seen until the node is made again. chmod and utimensat are applied on the host first.
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host.h"

typedef struct host_id {
  uint64_t dev, ino;
} host_id;

typedef struct host_node {
  ws_node *node;
  host_id id;
  struct host_node *next;  // in the mount's table bucket
  ws_node *parent;         // directories: the one holding it (referenced); NULL: root, or removed
  // Regular files: the host descriptor, or UNOPENED. Directories: the held directory.
  // Symlinks: -1.
  int fd;
  ws_node *found_in;       // regular files not yet opened: the directory (referenced)...
  char *found_as;          // ...and the name they were found as
  char *target;            // symlinks
  uint8_t *listing;        // directories: the snapshot readdir serves (see host_readdir)
  uint32_t *offsets;       // where each entry of `listing` starts
  uint32_t entries;
} host_node;

typedef struct host_mount {
  const ws_host_io *calls;
  uint64_t root_dev;           // files on other devices get inode numbers mixed with theirs
  pthread_mutex_t table_lock;  // the table (and the readdir snapshots); a leaf lock
  host_node **buckets;
  uint32_t mask, count;
} host_mount;

enum { UNOPENED = INT_MIN };  // a regular file's fd before its first use

static host_mount *mount_of(const ws_node *node) { return node->mount->data; }
static const ws_host_io *calls_of(const ws_node *node) { return mount_of(node)->calls; }
static int held(const ws_node *dir) { return ((host_node *)dir->data)->fd; }
static host_id id_of(const ws_host_stat *info) { return (host_id){info->dev, info->ino}; }
static bool same_id(host_id a, host_id b) { return a.dev == b.dev && a.ino == b.ino; }

// A name from the core (not terminated) as the host calls take it.
static int leaf_of(const char *name, size_t length, char out[WS_NAME_MAX + 1]) {
  if (length > WS_NAME_MAX) return -ENAMETOOLONG;
  memcpy(out, name, length);
  out[length] = '\0';
  return 0;
}

// ----- the table of live nodes (table_lock held) -----------------------------------------------
static host_node **bucket(host_mount *hm, host_id id) {
  return &hm->buckets[((id.ino ^ id.dev * 0xff51afd7ed558ccdull) * 0x9e3779b97f4a7c15ull >> 32) & hm->mask];
}

static void table_grow(host_mount *hm) {
  uint32_t size = (hm->mask + 1) * 2;
  host_node **buckets = calloc(size, sizeof *buckets);
  if (buckets == NULL) return;  // stays slower, still correct
  host_node **old = hm->buckets;
  uint32_t old_size = hm->mask + 1;
  hm->buckets = buckets;
  hm->mask = size - 1;
  for (uint32_t i = 0; i < old_size; i++) {
    for (host_node *hn = old[i], *next; hn != NULL; hn = next) {
      next = hn->next;
      hn->next = *bucket(hm, hn->id);
      *bucket(hm, hn->id) = hn;
    }
  }
  free(old);
}

// The live node of host file `id`, referenced, or NULL (a node whose count reached zero is
// on its way out: its release removes it).
static ws_node *table_find(host_mount *hm, host_id id) {
  for (host_node *hn = *bucket(hm, id); hn != NULL; hn = hn->next) {
    if (!same_id(hn->id, id)) continue;
    uint32_t refs = atomic_load(&hn->node->refs);
    while (refs != 0) {
      if (atomic_compare_exchange_weak(&hn->node->refs, &refs, refs + 1)) return hn->node;
    }
  }
  return NULL;
}

static void table_insert(host_mount *hm, host_node *hn) {
  hn->next = *bucket(hm, hn->id);
  *bucket(hm, hn->id) = hn;
  if (++hm->count > hm->mask + 1) table_grow(hm);
}

static void table_remove(host_mount *hm, host_node *gone) {
  for (host_node **at = bucket(hm, gone->id); *at != NULL; at = &(*at)->next) {
    if (*at == gone) {
      *at = gone->next;
      hm->count--;
      return;
    }
  }
}

// ----- making nodes ----------------------------------------------------------------------------
static void copy_attributes(ws_node *node, const ws_host_stat *info) {
  node->mode = info->mode;
  node->nlink = info->nlink;
  node->size = info->size;
  node->blocks = info->blocks;
  node->atime = (struct timespec){(time_t)info->atime_sec, info->atime_nsec};
  node->mtime = (struct timespec){(time_t)info->mtime_sec, info->mtime_nsec};
  node->ctime = (struct timespec){(time_t)info->ctime_sec, info->ctime_nsec};
}

// st_ino as the program sees it: all files of a mount share its st_dev, so the inode numbers
// of files on other host devices (file systems mounted inside the directory) are mixed with
// their device's, keeping them apart from the mount's own.
static uint64_t virtual_ino(const host_mount *hm, host_id id) {
  return id.dev == hm->root_dev ? id.ino : id.ino ^ (id.dev * 0x9e3779b97f4a7c15ull & ~0xffffffffull);
}

// The node for host file `info` named `leaf` in `dir`: the live one, or a new one. `fd` is an
// open descriptor for it (regular files; -1: opened at its first use), taken over or closed. `info`
// NULL: `fd` is a regular file the call has just created, whose attributes are read only once,
// under the table's lock below; the host creates exclusively (WS_HOST_CREATE), so no other node
// of that file can exist or have written to it.
static int node_for(ws_node *dir, const char *leaf, const ws_host_stat *info, int fd, ws_node **child) {
  host_mount *hm = mount_of(dir);
  const ws_host_io *host = hm->calls;
  uint32_t type = info != NULL ? info->mode & S_IFMT : S_IFREG;
  if (type != S_IFREG && type != S_IFDIR && type != S_IFLNK) {
    if (fd >= 0) host->close(fd);
    return -EACCES;  // host FIFOs, sockets and devices are not passed through
  }
  if (info != NULL) {
    pthread_mutex_lock(&hm->table_lock);
    ws_node *found = table_find(hm, id_of(info));
    pthread_mutex_unlock(&hm->table_lock);
    if (found != NULL) {
      if (fd >= 0) host->close(fd);
      *child = found;
      return 0;
    }
  }
  ws_node *node = _ws_node_new(dir->mount, info != NULL ? info->mode : S_IFREG);
  host_node *hn = calloc(1, sizeof *hn);
  int error = node == NULL || hn == NULL ? -ENOMEM : 0;
  if (error == 0 && type == S_IFREG && fd < 0) {  // opened at its first use (open_found)
    fd = UNOPENED;
    if ((hn->found_as = strdup(leaf)) == NULL) error = -ENOMEM;
    hn->found_in = dir;
    _ws_node_ref(dir);
  }
  if (error == 0 && type == S_IFDIR && (fd = host->open_dir(held(dir), leaf)) < 0) error = fd;
  if (error == 0 && type == S_IFLNK) {
    char target[WS_PATH_MAX];
    int got = host->readlink(held(dir), leaf, target, sizeof target - 1);
    if (got < 0) error = got;
    if (error == 0 && (hn->target = strndup(target, (size_t)got)) == NULL) error = -ENOMEM;
  }
  if (error == 0 && type == S_IFDIR && (error = _ws_node_place(node, dir, leaf, strlen(leaf))) == 0) {
    hn->parent = dir;
    _ws_node_ref(dir);
  }
  if (error != 0) {
    if (fd >= 0) host->close(fd);
    if (hn != NULL) {
      _ws_node_unref(hn->parent);
      _ws_node_unref(hn->found_in);
      free(hn->found_as);
      free(hn->target);
    }
    free(hn);
    _ws_node_unref(node);  // no data yet: release has nothing to do
    return error;
  }
  hn->node = node;
  hn->fd = type == S_IFLNK ? -1 : fd;
  pthread_mutex_lock(&hm->table_lock);
  // Another thread may have made the node meanwhile. If not, the attributes of what was opened
  // are read again here, under the lock: a node for this file released since `info` was read
  // may have written after it (its writes end before its count reaches zero), and the name
  // may since name another file, which is the one `fd` holds.
  ws_host_stat now, probe;
  bool read_here = info == NULL;
  if (read_here && (error = host->fstat(fd, &now)) == 0 && (now.mode & S_IFMT) != S_IFREG) error = -EIO;
  if (error != 0) {
    pthread_mutex_unlock(&hm->table_lock);
    host->close(fd);
    free(hn);
    _ws_node_unref(node);
    return error;
  }
  if (!read_here) now = *info;
  ws_node *raced = table_find(hm, id_of(&now));
  while (!read_here && raced == NULL && hn->fd >= 0 && host->fstat(hn->fd, &probe) == 0 &&
         (probe.mode & S_IFMT) == type) {
    bool same = same_id(id_of(&probe), id_of(&now));
    now = probe;
    if (same) break;
    raced = table_find(hm, id_of(&now));
  }
  copy_attributes(node, &now);
  hn->id = id_of(&now);
  node->ino = virtual_ino(hm, hn->id);
  node->data = hn;
  if (raced == NULL && hn->fd != UNOPENED) table_insert(hm, hn);
  pthread_mutex_unlock(&hm->table_lock);
  if (raced != NULL) {
    _ws_node_unref(node);  // not in the table: its release frees what it holds
    node = raced;
  }
  *child = node;
  return 0;
}

// ----- the operations ----------------------------------------------------------------------------
int _ws_host_mount(ws_mount *mount, const char *options, const ws_host_io *host) {
  if (options == NULL) return -EINVAL;  // the host directory
  host_mount *hm = calloc(1, sizeof *hm);
  if (hm == NULL) return -ENOMEM;
  hm->calls = host;
  ws_host_stat info;
  int fd = host->open_root(options);
  int error = fd < 0 ? fd : host->fstat(fd, &info);
  if (error == 0 && (info.mode & S_IFMT) != S_IFDIR) error = -ENOTDIR;
  if (error == 0 && (hm->buckets = calloc(64, sizeof *hm->buckets)) == NULL) error = -ENOMEM;
  host_node *hn = error == 0 ? calloc(1, sizeof *hn) : NULL;
  if (error == 0 && hn == NULL) error = -ENOMEM;
  // The root node last: releasing a node calls into the mount, which is complete only on success.
  ws_node *root = error == 0 ? _ws_node_new(mount, info.mode) : NULL;
  if (error == 0 && root == NULL) error = -ENOMEM;
  if (error != 0) {
    if (fd >= 0) host->close(fd);
    free(hn);
    free(hm->buckets);
    free(hm);
    return error;
  }
  pthread_mutex_init(&hm->table_lock, NULL);
  hm->mask = 63;
  hm->root_dev = info.dev;
  copy_attributes(root, &info);
  *hn = (host_node){.node = root, .id = id_of(&info), .fd = fd};
  root->ino = virtual_ino(hm, hn->id);
  root->data = hn;
  mount->data = hm;
  *bucket(hm, hn->id) = hn;
  hm->count = 1;
  mount->root = root;
  return 0;
}

int _ws_host_lookup(ws_node *dir, const char *name, size_t length, ws_node **child) {
  char leaf[WS_NAME_MAX + 1];
  ws_host_stat info;
  int error = leaf_of(name, length, leaf);
  if (error == 0) error = calls_of(dir)->lstat(held(dir), leaf, &info);
  return error != 0 ? error : node_for(dir, leaf, &info, -1, child);
}

int _ws_host_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                   ws_node **child) {
  const ws_host_io *host = calls_of(dir);
  char leaf[WS_NAME_MAX + 1];
  int error = leaf_of(name, length, leaf), fd = -1;
  if (error != 0) return error;
  switch (mode & S_IFMT) {
    case S_IFREG: error = fd = host->open(held(dir), leaf, WS_HOST_READ_WRITE | WS_HOST_CREATE, mode & 07777); break;
    case S_IFDIR: error = host->mkdir(held(dir), leaf, mode & 07777); break;
    case S_IFLNK: error = host->symlink(target, held(dir), leaf); break;
    default: return -EPERM;  // no FIFOs or devices on the host's disk
  }
  if (error < 0) return error;
  ws_host_stat info;
  if (fd >= 0) error = node_for(dir, leaf, NULL, fd, child);
  else if ((error = host->lstat(held(dir), leaf, &info)) == 0) error = node_for(dir, leaf, &info, -1, child);
  if (error != 0) {
    // The host made the entry but no node came of it: it goes again, so that a failed create
    // made nothing (and the directory's link count, kept here, stays the host's).
    if (S_ISDIR(mode)) {
      host->rmdir(held(dir), leaf);
    } else {
      host->unlink(held(dir), leaf);
    }
    return error;
  }
  if (S_ISDIR(mode)) dir->nlink++;
  return 0;
}

int _ws_host_link(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir, const char *from,
                 size_t from_length) {
  (void)node;  // reached through the name the program gave: the host links names, not files
  char leaf[WS_NAME_MAX + 1], from_leaf[WS_NAME_MAX + 1];
  int error = leaf_of(name, length, leaf);
  if (error == 0) error = leaf_of(from, from_length, from_leaf);
  return error != 0 ? error : calls_of(dir)->link(held(from_dir), from_leaf, held(dir), leaf);
}

// The live directory node of host file `id`, if any, now has `parent` (NULL: removed).
static void set_parent(host_mount *hm, host_id id, ws_node *parent) {
  pthread_mutex_lock(&hm->table_lock);
  ws_node *node = table_find(hm, id), *old = NULL;
  if (node != NULL && node->type == S_IFDIR) {
    host_node *hn = node->data;
    old = hn->parent;
    hn->parent = parent;
    if (parent != NULL) _ws_node_ref(parent);
  }
  pthread_mutex_unlock(&hm->table_lock);
  _ws_node_unref(old);
  _ws_node_unref(node);
}

// The core found `node` under the name (under the directory's lock): unlink or rmdir by its
// type, without asking the host first. If the host swapped the entry meanwhile, the host refuses
// the wrong call (EISDIR, ENOTDIR).
int _ws_host_unlink(ws_node *dir, const char *name, size_t length, ws_node *node) {
  const ws_host_io *host = calls_of(dir);
  char leaf[WS_NAME_MAX + 1];
  int error = leaf_of(name, length, leaf);
  if (error != 0) return error;
  bool is_dir = node->type == S_IFDIR;
  error = is_dir ? host->rmdir(held(dir), leaf) : host->unlink(held(dir), leaf);
  if (error != 0) return error;
  if (is_dir) {
    dir->nlink--;
    set_parent(mount_of(dir), ((host_node *)node->data)->id, NULL);
  }
  return 0;
}

int _ws_host_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                   size_t to_length) {
  const ws_host_io *host = calls_of(from_dir);
  char from_leaf[WS_NAME_MAX + 1], to_leaf[WS_NAME_MAX + 1];
  ws_host_stat moved, replaced;
  int error = leaf_of(from, from_length, from_leaf);
  if (error == 0) error = leaf_of(to, to_length, to_leaf);
  if (error == 0) error = host->lstat(held(from_dir), from_leaf, &moved);
  if (error != 0) return error;
  bool replacing = host->lstat(held(to_dir), to_leaf, &replaced) == 0;
  if ((error = host->rename(held(from_dir), from_leaf, held(to_dir), to_leaf)) != 0) return error;
  bool moved_dir = (moved.mode & S_IFMT) == S_IFDIR;
  if (replacing && !same_id(id_of(&replaced), id_of(&moved)) && (replaced.mode & S_IFMT) == S_IFDIR) {
    to_dir->nlink--;
    set_parent(mount_of(to_dir), id_of(&replaced), NULL);
  }
  if (moved_dir) set_parent(mount_of(to_dir), id_of(&moved), to_dir);
  if (moved_dir && from_dir != to_dir) {
    from_dir->nlink--;
    to_dir->nlink++;
  }
  return 0;
}

// A snapshot of the host directory is taken when a listing starts (cookie 0) and serves it by
// entry number; entries come and go on the host between listings, not during one.
int _ws_host_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next) {
  const ws_host_io *host = calls_of(dir);
  host_node *hn = dir->data;
  host_mount *hm = mount_of(dir);
  int error = 0;
  pthread_mutex_lock(&hm->table_lock);  // readers of one directory share its snapshot
  if (cookie == 0 || hn->listing == NULL) {
    pthread_mutex_unlock(&hm->table_lock);
    uint8_t *listing = NULL;
    int64_t size = 0, needed = 0;
    while (error == 0 && (needed = host->list(hn->fd, listing, (size_t)size)) > size) {
      free(listing);
      size = needed + 256;  // room for a few more entries made meanwhile
      if ((listing = malloc((size_t)size)) == NULL) error = -ENOMEM;
    }
    if (error == 0 && needed < 0) error = (int)needed;
    uint32_t count = 0, *offsets = NULL;
    for (int64_t at = 0; error == 0 && at < needed; count++) at += 10 + (int64_t)strlen((char *)listing + at + 9);
    if (error == 0 && (offsets = malloc((count + 1) * sizeof *offsets)) == NULL) error = -ENOMEM;
    for (uint32_t i = 0, at = 0; error == 0 && i < count; i++) {
      offsets[i] = at;
      at += 10 + (uint32_t)strlen((char *)listing + at + 9);
    }
    pthread_mutex_lock(&hm->table_lock);
    if (error == 0) {
      free(hn->listing);
      free(hn->offsets);
      hn->listing = listing;
      hn->offsets = offsets;
      hn->entries = count;
    } else {
      free(listing);
      free(offsets);
    }
  }
  int result = 0;
  if (error == 0 && cookie < hn->entries) {
    const uint8_t *at = hn->listing + hn->offsets[cookie];
    entry->type = (uint32_t)at[0] << 12;
    entry->ino = 0;
    for (int i = 7; i >= 0; i--) entry->ino = entry->ino << 8 | at[1 + i];
    size_t length = strlen((const char *)at + 9);
    if (length > WS_NAME_MAX) length = WS_NAME_MAX;
    memcpy(entry->name, at + 9, length);
    entry->name[length] = '\0';
    entry->length = (uint16_t)length;
    *next = cookie + 1;
    result = 1;
  }
  pthread_mutex_unlock(&hm->table_lock);
  return error != 0 ? error : result;
}

int _ws_host_readlink(ws_node *link, char *buffer, size_t size) {
  const char *target = ((host_node *)link->data)->target;
  size_t length = strlen(target);
  if (length > size) length = size;
  memcpy(buffer, target, length);
  return (int)length;
}

// Opens regular file `file` (its lock held for writing) by the name it was found as, checks that
// the name still names it, and enters it in the table: -ESTALE if the host removed or replaced
// it since, or another node opened it (the core then resolves the path again). Opened for
// reading only where the host refuses writing.
static int open_found(ws_node *file) {
  host_node *hn = file->data;
  host_mount *hm = mount_of(file);
  const ws_host_io *host = hm->calls;
  ws_node *left = NULL, *other = NULL;
  pthread_mutex_lock(&hm->table_lock);
  int fd = hn->fd;
  // Another node opened this file meanwhile (two nodes for one file would keep two sizes and
  // two sets of locks): the core's next walk finds that one. Asked before the size is read: a
  // node of the file on its way out (count zero, not yet removed) has ended its writes, so the
  // fstat below sees them; read first, the size could miss that node's last append, and this
  // node's next append would overwrite it.
  if (fd == UNOPENED && (other = table_find(hm, hn->id)) != NULL) fd = -ESTALE;
  if (fd == UNOPENED) {  // else an earlier use opened it
    fd = host->open(held(hn->found_in), hn->found_as, WS_HOST_READ_WRITE, 0);
    if (fd == -EACCES || fd == -EROFS) fd = host->open(held(hn->found_in), hn->found_as, WS_HOST_READ_ONLY, 0);
    ws_host_stat now;
    int error = fd < 0 ? fd : host->fstat(fd, &now);
    if (error == 0 && ((now.mode & S_IFMT) != S_IFREG || !same_id(id_of(&now), hn->id))) error = -ESTALE;
    if (error == -ENOENT || error == -ELOOP || error == -EISDIR) error = -ESTALE;  // gone, or not a file now
    if (error == 0) {
      // Newer than the lookup's: a node of this file released since may have written after it.
      copy_attributes(file, &now);
      left = hn->found_in;
      free(hn->found_as);
      hn->found_in = NULL;
      hn->found_as = NULL;
      __atomic_store_n(&hn->fd, fd, __ATOMIC_RELEASE);
      table_insert(hm, hn);
    } else {
      if (fd >= 0) host->close(fd);
      fd = error;
    }
  }
  pthread_mutex_unlock(&hm->table_lock);
  _ws_node_unref(left);
  _ws_node_unref(other);
  return fd;
}

// A node's host descriptor, or -errno. A regular file not yet opened is opened here: every use
// that may come first (open, truncate, the attribute changes) holds the node's lock for writing.
static int file_fd(ws_node *file) {
  int fd = __atomic_load_n(&((host_node *)file->data)->fd, __ATOMIC_ACQUIRE);
  return fd != UNOPENED ? fd : open_found(file);
}

// An open() that would succeed in the core fails here if the host refuses the file (EACCES;
// EBUSY when another tab holds an OPFS file), or replaced it since the lookup (ESTALE).
int _ws_host_open(ws_node *node, int flags) {
  (void)flags;
  if (node->type != S_IFREG) return 0;
  ws_rwlock_write(&node->lock);
  int fd = file_fd(node);
  ws_rwlock_unlock(&node->lock);
  return fd < 0 ? fd : 0;
}

int64_t _ws_host_read(ws_node *file, void *buffer, size_t length, uint64_t offset) {
  const ws_host_io *host = calls_of(file);
  int fd = file_fd(file);
  if (fd < 0) return fd;
  size_t done = 0;
  while (done < length) {  // a host read may stop short of what the file holds...
    int64_t got = host->pread(fd, (char *)buffer + done, length - done, offset + done);
    if (got < 0) return done > 0 ? (int64_t)done : got;
    if (got == 0) break;
    done += (size_t)got;
    // ...but one that reached the size last seen ended at the end of the file: asking again
    // would only read the 0 that says so (another call per read of a whole small file).
    if (done < length && offset + done >= file->size) break;
  }
  return (int64_t)done;
}

int64_t _ws_host_write(ws_node *file, const void *buffer, size_t length, uint64_t offset) {
  const ws_host_io *host = calls_of(file);
  int fd = file_fd(file);
  if (fd < 0) return fd;
  size_t done = 0;
  while (done < length) {
    int64_t put = host->pwrite(fd, (const char *)buffer + done, length - done, offset + done);
    if (put <= 0) {
      if (done == 0) return put < 0 ? (put == -EDQUOT ? -ENOSPC : put) : -EIO;
      break;
    }
    done += (size_t)put;
  }
  if (offset + done > file->size) file->size = offset + done;
  file->blocks = (file->size + 511) / 512;
  return (int64_t)done;
}

int _ws_host_truncate(ws_node *file, uint64_t size) {
  const ws_host_io *host = calls_of(file);
  int fd = file_fd(file);
  int error = fd < 0 ? fd : host->ftruncate(fd, size);
  if (error == 0) {
    file->size = size;
    file->blocks = (size + 511) / 512;
  }
  return error;
}

int _ws_host_sync(ws_node *file) {
  if (file->type != S_IFREG) return 0;  // directories and symlinks: nothing buffered here
  int fd = file_fd(file);
  return fd < 0 ? 0 : calls_of(file)->fsync(fd);
}

// Node has no fallocate: the file grows to cover the range (sparse where the host allows).
int _ws_host_allocate(ws_node *file, uint64_t offset, uint64_t length) {
  return offset + length > file->size ? _ws_host_truncate(file, offset + length) : 0;
}

// A symlink has no descriptor to apply attributes through: its mode cannot change on Linux
// either (the core refuses that first), and its times are refused rather than left unchanged.
int _ws_host_set_mode(ws_node *node, uint32_t mode) {
  int fd = file_fd(node);
  if (node->type == S_IFLNK) return -EOPNOTSUPP;
  return fd < 0 ? fd : calls_of(node)->chmod(fd, mode);
}

int _ws_host_set_times(ws_node *node, const struct timespec times[2]) {
  int fd = file_fd(node);
  if (node->type == S_IFLNK) return -EOPNOTSUPP;
  if (fd < 0) return fd;
  int64_t seconds[2] = {times[0].tv_sec, times[1].tv_sec};
  int32_t nanoseconds[2] = {(int32_t)times[0].tv_nsec, (int32_t)times[1].tv_nsec};
  return calls_of(node)->utimes(fd, seconds, nanoseconds);
}

void _ws_host_release(ws_node *node) {
  const ws_host_io *host = calls_of(node);
  host_node *hn = node->data;
  if (hn == NULL) return;
  host_mount *hm = mount_of(node);
  pthread_mutex_lock(&hm->table_lock);
  table_remove(hm, hn);
  pthread_mutex_unlock(&hm->table_lock);
  if (hn->fd >= 0) host->close(hn->fd);
  _ws_node_unref(hn->parent);
  _ws_node_unref(hn->found_in);
  free(hn->found_as);
  free(hn->target);
  free(hn->listing);
  free(hn->offsets);
  free(hn);
  node->data = NULL;
}

void _ws_host_unmount(ws_mount *mount) {
  host_mount *hm = mount->data;
  pthread_mutex_destroy(&hm->table_lock);
  free(hm->buckets);
  free(hm);
}

static int local_mount(ws_mount *mount, const char *options) {
  if (options == NULL || options[0] == '\0') return -EINVAL;
  return _ws_host_mount(mount, options, &ws_prim_host_io);
}

static const ws_fs_backend host_backend = {.name = "host", .mount = local_mount, WS_HOST_OPERATIONS};

const ws_fs_backend *ws_fs_host_backend(void) { return &host_backend; }
