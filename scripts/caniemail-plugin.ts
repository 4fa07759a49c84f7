// An esbuild plugin: src/checks/compat/data/caniemail.json (654 KB as vendored) goes into the bundle in the compact
// form the compat matcher reads (about 240 KB: latest version per client, cited notes only). From source, data.ts
// compacts the same file at load, so both give the same data.
import fs from 'node:fs';
import type { Plugin } from 'esbuild';
import { compactCaniemail } from '../src/checks/compat/compact.ts';

export const caniemailCompact: Plugin = {
  name: 'caniemail-compact',
  setup(b) {
    b.onLoad({ filter: /[\\/]checks[\\/]compat[\\/]data[\\/]caniemail\.json$/ }, (args) => ({
      contents: JSON.stringify(compactCaniemail(JSON.parse(fs.readFileSync(args.path, 'utf8')))),
      loader: 'json',
    }));
  },
};
