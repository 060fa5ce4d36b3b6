// The host-directory backend: a directory of the host mounted into the file system (on Node a
// real directory through Node's fs, natively the OS's own). Every operation is a synchronous
// host call made by the calling thread (src/platform/*/host), so any thread reads and writes
// host files without the main thread. The calls come from a table (host.h), so the same logic
// also serves the OPFS backend (../opfs/backend.c), whose calls go to the OPFS I/O worker.
//
// Nodes: one ws_node per host inode while anything references it, found through a table keyed
// by the host's inode number, so two opens of one file share its size and locks. A regular
// file's host descriptor is opened when its node is made and closed with it. Each node keeps
// one name it is known by (a directory node and a name), under the mount's names_lock, to
// build host paths: the core hands the backend single path components, never "..", and
// follows symlinks itself within the virtual tree, so no path built here leaves the mounted
// directory. Attributes are read from the host when a node is made; later changes made behind
// the program's back (another process) are not seen until the node is made again.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host.h"

typedef struct host_node {
  ws_node *node;
  uint64_t host_ino;
  struct host_node *next;  // in the mount's table bucket
  ws_node *parent;         // directory of the name below (referenced); NULL: root, or name gone
  char *name;
  int fd;                  // regular files: the host descriptor, or -1 if it could not be opened
  char *target;            // symlinks
  uint8_t *listing;        // directories: the snapshot readdir serves (see host_readdir)
  uint32_t *offsets;       // where each entry of `listing` starts
  uint32_t entries;
} host_node;

typedef struct host_mount {
  const ws_host_calls *calls;
  char root[WS_PATH_MAX];
  pthread_mutex_t names_lock;  // the table and every node's parent/name; a leaf lock
  host_node **buckets;
  uint32_t mask, count;
} host_mount;

static host_mount *mount_of(const ws_node *node) { return node->mount->data; }
static const ws_host_calls *calls_of(const ws_node *node) { return mount_of(node)->calls; }

// ----- the inode table (names_lock held) ------------------------------------------------------
static host_node **bucket(host_mount *hm, uint64_t ino) {
  return &hm->buckets[(ino * 0x9e3779b97f4a7c15ull >> 32) & hm->mask];
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
      hn->next = *bucket(hm, hn->host_ino);
      *bucket(hm, hn->host_ino) = hn;
    }
  }
  free(old);
}

// The live node of host inode `ino`, referenced, or NULL (a node whose count reached zero is
// on its way out: its release removes it).
static ws_node *table_find(host_mount *hm, uint64_t ino) {
  for (host_node *hn = *bucket(hm, ino); hn != NULL; hn = hn->next) {
    if (hn->host_ino != ino) continue;
    uint32_t refs = atomic_load(&hn->node->refs);
    while (refs != 0) {
      if (atomic_compare_exchange_weak(&hn->node->refs, &refs, refs + 1)) return hn->node;
    }
  }
  return NULL;
}

static void table_remove(host_mount *hm, host_node *gone) {
  for (host_node **at = bucket(hm, gone->host_ino); *at != NULL; at = &(*at)->next) {
    if (*at == gone) {
      *at = gone->next;
      hm->count--;
      return;
    }
  }
}

// ----- host paths ------------------------------------------------------------------------------
// The host path of `name` in directory `dir` (or of `dir` itself when name is NULL).
static int host_path(ws_node *dir, const char *name, size_t length, char *out) {
  host_mount *hm = mount_of(dir);
  const char *parts[WS_PATH_MAX / 2];
  size_t count = 0, total = strlen(hm->root);
  int error = 0;
  pthread_mutex_lock(&hm->names_lock);
  for (ws_node *at = dir; at != dir->mount->root && error == 0; at = ((host_node *)at->data)->parent) {
    host_node *hn = at->data;
    if (hn->parent == NULL) {
      error = -ENOENT;  // removed meanwhile
    } else if (count == sizeof parts / sizeof *parts) {
      error = -ENAMETOOLONG;
    } else {
      parts[count++] = hn->name;
      total += 1 + strlen(hn->name);
    }
  }
  if (error == 0 && total + (name != NULL ? 1 + length : 0) >= WS_PATH_MAX) error = -ENAMETOOLONG;
  if (error == 0) {
    size_t at = strlen(hm->root);
    memcpy(out, hm->root, at);
    while (count > 0) {
      size_t part = strlen(parts[--count]);
      out[at++] = '/';
      memcpy(out + at, parts[count], part);
      at += part;
    }
    if (name != NULL) {
      out[at++] = '/';
      memcpy(out + at, name, length);
      at += length;
    }
    out[at] = '\0';
  }
  pthread_mutex_unlock(&hm->names_lock);
  return error;
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

// The node for host inode `info` named `name` in `dir`: the live one, or a new one. `fd` is
// an open descriptor for it (regular files; -1 to open one here), taken over or closed.
static int node_for(ws_node *dir, const char *name, size_t length, const char *path, const ws_host_stat *info,
                    int fd, ws_node **child) {
  host_mount *hm = mount_of(dir);
  const ws_host_calls *host = hm->calls;
  uint32_t type = info->mode & S_IFMT;
  if (type != S_IFREG && type != S_IFDIR && type != S_IFLNK) {
    if (fd >= 0) host->close(fd);
    return -EACCES;  // host FIFOs, sockets and devices are not passed through
  }
  pthread_mutex_lock(&hm->names_lock);
  ws_node *found = table_find(hm, info->ino);
  pthread_mutex_unlock(&hm->names_lock);
  if (found != NULL) {
    if (fd >= 0) host->close(fd);
    *child = found;
    return 0;
  }
  ws_node *node = ws_node_new(dir->mount, info->mode);
  host_node *hn = calloc(1, sizeof *hn);
  char *own_name = strndup(name, length);
  int error = node == NULL || hn == NULL || own_name == NULL ? -ENOMEM : 0;
  if (error == 0 && type == S_IFREG && fd < 0) {
    fd = host->open(path, WS_HOST_READ_WRITE, 0);
    if (fd == -EACCES || fd == -EROFS) fd = host->open(path, WS_HOST_READ_ONLY, 0);
    // A file that cannot be opened still has attributes; opening it reports why (ws_host_open).
  }
  if (error == 0 && type == S_IFLNK) {
    char target[WS_PATH_MAX];
    int got = host->readlink(path, target, sizeof target - 1);
    if (got < 0) error = got;
    if (error == 0 && (hn->target = strndup(target, (size_t)got)) == NULL) error = -ENOMEM;
  }
  if (error == 0 && type == S_IFDIR) error = ws_node_place(node, dir, name, length);
  if (error != 0) {
    if (fd >= 0) host->close(fd);
    free(own_name);
    if (hn != NULL) free(hn->target);
    free(hn);
    ws_node_unref(node);  // no data yet: release has nothing to do
    return error;
  }
  hn->node = node;
  hn->fd = type == S_IFREG ? fd : -1;
  ws_host_stat now = *info;
  pthread_mutex_lock(&hm->names_lock);
  // Another thread may have made the node meanwhile. If not, an open file's attributes are
  // read again here, under the lock: a node for this inode released since `info` was read
  // may have written after it (its writes end before its count reaches zero), and the name
  // may since name another inode, which is the one `fd` holds.
  ws_node *raced = table_find(hm, now.ino);
  ws_host_stat probe;
  while (raced == NULL && hn->fd >= 0 && host->fstat(hn->fd, &probe) == 0 && (probe.mode & S_IFMT) == type) {
    bool same = probe.ino == now.ino;
    now = probe;
    if (same) break;
    raced = table_find(hm, now.ino);
  }
  copy_attributes(node, &now);
  node->ino = hn->host_ino = now.ino;
  if (raced == NULL) {
    hn->name = own_name;
    hn->parent = dir;
    ws_node_ref(dir);
    node->data = hn;
    hn->next = *bucket(hm, now.ino);
    *bucket(hm, now.ino) = hn;
    if (++hm->count > hm->mask + 1) table_grow(hm);
  }
  pthread_mutex_unlock(&hm->names_lock);
  if (raced != NULL) {
    node->data = hn;
    hn->name = own_name;  // released with the unused node (not in the table)
    ws_node_unref(node);
    node = raced;
  }
  *child = node;
  return 0;
}

// ----- the operations ----------------------------------------------------------------------------
int ws_host_mount(ws_mount *mount, const char *options, const ws_host_calls *host) {
  if (options == NULL) return -EINVAL;  // the host directory
  host_mount *hm = calloc(1, sizeof *hm);
  if (hm == NULL) return -ENOMEM;
  hm->calls = host;
  ws_host_stat info;
  int error = host->realpath(options, hm->root, sizeof hm->root);
  if (error == 0) error = host->lstat(hm->root, &info);
  if (error == 0 && (info.mode & S_IFMT) != S_IFDIR) error = -ENOTDIR;
  if (error == 0 && (hm->buckets = calloc(64, sizeof *hm->buckets)) == NULL) error = -ENOMEM;
  ws_node *root = error == 0 ? ws_node_new(mount, info.mode) : NULL;
  host_node *hn = root != NULL ? calloc(1, sizeof *hn) : NULL;
  if (error == 0 && hn == NULL) error = -ENOMEM;
  if (error != 0) {
    ws_node_unref(root);
    free(hm->buckets);
    free(hm);
    return error;
  }
  pthread_mutex_init(&hm->names_lock, NULL);
  hm->mask = 63;
  copy_attributes(root, &info);
  root->ino = info.ino;
  *hn = (host_node){.node = root, .host_ino = info.ino, .fd = -1};
  root->data = hn;
  mount->data = hm;
  *bucket(hm, info.ino) = hn;
  hm->count = 1;
  mount->root = root;
  return 0;
}

int ws_host_lookup(ws_node *dir, const char *name, size_t length, ws_node **child) {
  const ws_host_calls *host = calls_of(dir);
  char path[WS_PATH_MAX];
  ws_host_stat info;
  int error = host_path(dir, name, length, path);
  if (error == 0) error = host->lstat(path, &info);
  return error != 0 ? error : node_for(dir, name, length, path, &info, -1, child);
}

int ws_host_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                       ws_node **child) {
  const ws_host_calls *host = calls_of(dir);
  char path[WS_PATH_MAX];
  int error = host_path(dir, name, length, path), fd = -1;
  if (error != 0) return error;
  switch (mode & S_IFMT) {
    case S_IFREG: error = fd = host->open(path, WS_HOST_READ_WRITE | WS_HOST_CREATE, mode & 07777); break;
    case S_IFDIR: error = host->mkdir(path, mode & 07777); break;
    case S_IFLNK: error = host->symlink(target, path); break;
    default: return -EPERM;  // no FIFOs or devices on the host's disk
  }
  if (error < 0) return error;
  ws_host_stat info;
  error = host->lstat(path, &info);
  if (error == 0) error = node_for(dir, name, length, path, &info, fd, child);
  else if (fd >= 0) host->close(fd);
  if (error == 0 && S_ISDIR(mode)) dir->nlink++;
  return error;
}

int ws_host_link(ws_node *dir, const char *name, size_t length, ws_node *node) {
  const ws_host_calls *host = calls_of(dir);
  host_node *hn = node->data;
  char existing[WS_PATH_MAX], path[WS_PATH_MAX];
  pthread_mutex_lock(&mount_of(node)->names_lock);
  ws_node *known_dir = hn->parent;
  if (known_dir != NULL) ws_node_ref(known_dir);
  char *known_name = known_dir != NULL ? strdup(hn->name) : NULL;
  pthread_mutex_unlock(&mount_of(node)->names_lock);
  int error = known_dir == NULL ? -ENOENT : known_name == NULL ? -ENOMEM : 0;
  if (error == 0) error = host_path(known_dir, known_name, strlen(known_name), existing);
  if (error == 0) error = host_path(dir, name, length, path);
  if (error == 0) error = host->link(existing, path);
  free(known_name);
  ws_node_unref(known_dir);
  return error;
}

// Forgets that the node of host inode `ino` is named `name` in `dir` (it was unlinked or replaced).
static void forget_name(ws_node *dir, const char *name, size_t length, uint64_t ino) {
  host_mount *hm = mount_of(dir);
  pthread_mutex_lock(&hm->names_lock);
  ws_node *node = table_find(hm, ino);
  ws_node *old_parent = NULL;
  if (node != NULL) {
    host_node *hn = node->data;
    if (hn->parent == dir && strlen(hn->name) == length && memcmp(hn->name, name, length) == 0) {
      old_parent = hn->parent;
      hn->parent = NULL;
    }
  }
  pthread_mutex_unlock(&hm->names_lock);
  ws_node_unref(old_parent);
  ws_node_unref(node);
}

int ws_host_unlink(ws_node *dir, const char *name, size_t length) {
  const ws_host_calls *host = calls_of(dir);
  char path[WS_PATH_MAX];
  ws_host_stat info;
  int error = host_path(dir, name, length, path);
  if (error == 0) error = host->lstat(path, &info);
  if (error != 0) return error;
  bool is_dir = (info.mode & S_IFMT) == S_IFDIR;
  error = is_dir ? host->rmdir(path) : host->unlink(path);
  if (error != 0) return error;
  if (is_dir) dir->nlink--;
  forget_name(dir, name, length, info.ino);
  return 0;
}

int ws_host_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                       size_t to_length) {
  const ws_host_calls *host = calls_of(from_dir);
  char from_path[WS_PATH_MAX], to_path[WS_PATH_MAX];
  ws_host_stat moved, replaced;
  int error = host_path(from_dir, from, from_length, from_path);
  if (error == 0) error = host_path(to_dir, to, to_length, to_path);
  if (error == 0) error = host->lstat(from_path, &moved);
  if (error != 0) return error;
  bool replacing = host->lstat(to_path, &replaced) == 0;
  if ((error = host->rename(from_path, to_path)) != 0) return error;
  bool moved_dir = (moved.mode & S_IFMT) == S_IFDIR;
  if (replacing && replaced.ino != moved.ino) {
    if ((replaced.mode & S_IFMT) == S_IFDIR) to_dir->nlink--;
    forget_name(to_dir, to, to_length, replaced.ino);
  }
  if (moved_dir && from_dir != to_dir) {
    from_dir->nlink--;
    to_dir->nlink++;
  }
  host_mount *hm = mount_of(from_dir);
  char *new_name = strndup(to, to_length);
  pthread_mutex_lock(&hm->names_lock);
  ws_node *node = table_find(hm, moved.ino);
  ws_node *old_parent = NULL;
  if (node != NULL && new_name != NULL) {
    host_node *hn = node->data;
    old_parent = hn->parent;
    free(hn->name);
    hn->name = new_name;
    new_name = NULL;
    hn->parent = to_dir;
    ws_node_ref(to_dir);
  }
  pthread_mutex_unlock(&hm->names_lock);
  free(new_name);
  ws_node_unref(old_parent);
  ws_node_unref(node);
  return 0;
}

// A snapshot of the host directory is taken when a listing starts (cookie 0) and serves it by
// entry number; entries come and go on the host between listings, not during one.
int ws_host_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next) {
  const ws_host_calls *host = calls_of(dir);
  host_node *hn = dir->data;
  host_mount *hm = mount_of(dir);
  int error = 0;
  pthread_mutex_lock(&hm->names_lock);  // readers of one directory share its snapshot
  if (cookie == 0 || hn->listing == NULL) {
    pthread_mutex_unlock(&hm->names_lock);
    char path[WS_PATH_MAX];
    uint8_t *listing = NULL;
    int64_t size = 0, needed = 0;
    error = host_path(dir, NULL, 0, path);
    while (error == 0 && (needed = host->list(path, listing, (size_t)size)) > size) {
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
    pthread_mutex_lock(&hm->names_lock);
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
  pthread_mutex_unlock(&hm->names_lock);
  return error != 0 ? error : result;
}

int ws_host_readlink(ws_node *link, char *buffer, size_t size) {
  const char *target = ((host_node *)link->data)->target;
  size_t length = strlen(target);
  if (length > size) length = size;
  memcpy(buffer, target, length);
  return (int)length;
}

// A regular file's host descriptor, or -errno: why it could not be opened.
static int file_fd(ws_node *file) { return ((host_node *)file->data)->fd; }

// An open() that would succeed in the core fails here if the host refused the file (EACCES;
// EBUSY when another tab holds an OPFS file).
int ws_host_open(ws_node *node, int flags) {
  (void)flags;
  return node->type == S_IFREG ? (file_fd(node) < 0 ? file_fd(node) : 0) : 0;
}

int64_t ws_host_read(ws_node *file, void *buffer, size_t length, uint64_t offset) {
  const ws_host_calls *host = calls_of(file);
  int fd = file_fd(file);
  if (fd < 0) return fd;
  size_t done = 0;
  while (done < length) {  // a host read may stop short of what the file holds
    int64_t got = host->pread(fd, (char *)buffer + done, length - done, offset + done);
    if (got < 0) return done > 0 ? (int64_t)done : got;
    if (got == 0) break;
    done += (size_t)got;
  }
  return (int64_t)done;
}

int64_t ws_host_write(ws_node *file, const void *buffer, size_t length, uint64_t offset) {
  const ws_host_calls *host = calls_of(file);
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

int ws_host_truncate(ws_node *file, uint64_t size) {
  const ws_host_calls *host = calls_of(file);
  int fd = file_fd(file);
  int error = fd < 0 ? fd : host->ftruncate(fd, size);
  if (error == 0) {
    file->size = size;
    file->blocks = (size + 511) / 512;
  }
  return error;
}

int ws_host_sync(ws_node *file) {
  const ws_host_calls *host = calls_of(file);
  int fd = file_fd(file);
  return fd < 0 ? 0 : host->fsync(fd);  // directories and symlinks: nothing buffered here
}

// Node has no fallocate: the file grows to cover the range (sparse where the host allows).
int ws_host_allocate(ws_node *file, uint64_t offset, uint64_t length) {
  return offset + length > file->size ? ws_host_truncate(file, offset + length) : 0;
}

void ws_host_release(ws_node *node) {
  const ws_host_calls *host = calls_of(node);
  host_node *hn = node->data;
  if (hn == NULL) return;
  host_mount *hm = mount_of(node);
  pthread_mutex_lock(&hm->names_lock);
  table_remove(hm, hn);
  ws_node *parent = hn->parent;
  pthread_mutex_unlock(&hm->names_lock);
  if (hn->fd >= 0) host->close(hn->fd);
  ws_node_unref(parent);
  free(hn->name);
  free(hn->target);
  free(hn->listing);
  free(hn->offsets);
  free(hn);
  node->data = NULL;
}

static int local_mount(ws_mount *mount, const char *options) {
  static const ws_host_calls local = WS_HOST_CALLS(ws_prim_host);
  if (options == NULL || options[0] == '\0') return -EINVAL;
  return ws_host_mount(mount, options, &local);
}

static const ws_fs_backend host_backend = {.name = "host", .mount = local_mount, WS_HOST_OPERATIONS};

const ws_fs_backend *ws_fs_host_backend(void) { return &host_backend; }
