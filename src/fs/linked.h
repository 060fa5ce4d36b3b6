// The parts of the file system a program links only when it asks for them. The driver asks
// the linker for each part by its symbol (-Wl,--undefined=SYMBOL: tools/libraries.py reads the
// lists below from this file), and the core reaches them only through weak references, so a
// program that asks for none carries none of their code. A part added here is a part the
// driver, the pkg-config and CMake files and the core agree on.
#ifndef WASMSCALE_FS_LINKED_H
#define WASMSCALE_FS_LINKED_H

// Backends beyond the memory backend, mounted by name at run time (Module.wasmscaleFS.mount,
// --mount) and linked by wasmscale-cc --backend=NAME: WS_BACKEND(name, its table's function).
#define WS_LINKED_BACKENDS(WS_BACKEND)  \
  WS_BACKEND(host, ws_fs_host_backend)  \
  WS_BACKEND(opfs, ws_fs_opfs_backend)

// Parts the driver links for its own options: WS_PART(name, symbol).
//   mount       the mounts of --mount, made at start-up (host/startup.c; brings the host backend)
//   embed_file  the files of --embed-file (embedded.c, with the packaged data)
//   js_api      Module.wasmscaleFS's C half (js/api.c), called from JS only
#define WS_LINKED_PARTS(WS_PART)                \
  WS_PART(mount, _ws_fs_mount_startup_dirs)      \
  WS_PART(embed_file, _ws_fs_create_embedded_files) \
  WS_PART(js_api, ws_js_alloc)

#endif
