// Emscripten's persistence pattern, unchanged (tests/fs/idbfs.c): an IDBFS mount made and
// populated in preRun, written by the program, and synced back after it.
Module.preRun = [function() {
  FS.mkdir('/saved');
  FS.mount(IDBFS, {}, '/saved');
  FS.syncfs(true, function(error) { console.log('idbfs: populated, ' + error); });
}];
