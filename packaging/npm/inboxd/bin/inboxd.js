#!/usr/bin/env node
// `inboxd` from npm: starts the prebuilt single executable of the platform package that npm installed beside this
// one (the way esbuild and Biome ship), passing arguments, standard streams, signals and the exit status through.
// Any Node that runs npm runs this file; the executable carries its own Node 24.
'use strict';
const { spawn } = require('node:child_process');

const PLATFORMS = { 'linux-x64': '@inboxd/linux-x64' };

function executable() {
  if (process.env.INBOXD_BINARY) return process.env.INBOXD_BINARY;
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    process.stderr.write(
      `inboxd: no prebuilt executable for ${key} (there is one for ${Object.keys(PLATFORMS).join(', ')}); ` +
        'build from source (npm ci && npm run build) and set INBOXD_BINARY to the result\n',
    );
    process.exit(1);
  }
  try {
    return require.resolve(`${pkg}/bin/inboxd`);
  } catch {
    process.stderr.write(
      `inboxd: the package ${pkg} with the executable is not installed; it is an optional dependency of inboxd, ` +
        `so an install with --no-optional or --omit=optional, or from a mirror without it, leaves it out: ` +
        `install it as well (npm i ${pkg}@${require('../package.json').version})\n`,
    );
    process.exit(1);
  }
}

const child = spawn(executable(), process.argv.slice(2), { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']) {
  process.on(sig, () => {
    if (child.exitCode === null) child.kill(sig);
  });
}
child.on('error', (err) => {
  process.stderr.write(`inboxd: cannot start the executable: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so a parent sees what the executable saw (no handler is left for it now).
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
