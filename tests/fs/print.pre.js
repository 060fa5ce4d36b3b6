// The program's own Module.print and Module.printErr (as emcc's default HTML shell sets them):
// every line they receive goes to the process's stdout, tagged, so the test sees which took it.
// (A pre-js runs in the workers too, so there they are the workers' own handlers.)
function taggedLine(tag) {
  return function(line) {
    var bytes = Buffer.from(tag + ' ' + line + '\n');
    for (var done = 0; done < bytes.length;) {
      try {
        done += require('fs').writeSync(1, bytes, done);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;  // the test's pipe is full: try again
      }
    }
  };
}
Module['print'] = taggedLine('[print]');
Module['printErr'] = taggedLine('[printErr]');
