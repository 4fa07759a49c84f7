// Bundles the browser console (src/console/ui/) with esbuild into one script and one stylesheet, in memory.
// scripts/build.ts calls it and carries the result in the executable as SEA assets; running from source
// (`npm run dev`, the API tests) the server calls it on the first request for the console (about 50 ms, then cached),
// so no generated file is checked in or goes stale.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleBundle {
  js: string;
  css: string;
  /** The source files in the bundle, absolute (scripts/build.ts lists the bundled packages for the release). */
  inputs?: string[];
}

/** SEA asset keys (scripts/build.ts embeds dist/console.js and dist/console.css under these). */
export const CONSOLE_JS_ASSET = 'console.js';
export const CONSOLE_CSS_ASSET = 'console.css';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CONSOLE_ENTRY = path.join(here, 'ui/main.ts');

export async function bundleConsole(): Promise<ConsoleBundle> {
  // esbuild is a devDependency: the executable never reaches this line (it has the assets), so the import stays
  // dynamic and is marked external in scripts/build.ts.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [CONSOLE_ENTRY],
    bundle: true,
    write: false,
    outdir: 'out',
    entryNames: 'console',
    format: 'iife',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    charset: 'utf8',
    metafile: true,
  });
  let js = '';
  let css = '';
  for (const f of result.outputFiles) {
    if (f.path.endsWith('.js')) js = f.text;
    else if (f.path.endsWith('.css')) css = f.text;
  }
  if (!js) throw new Error('bundling the console produced no script');
  return { js, css, inputs: Object.keys(result.metafile.inputs).map((f) => path.resolve(f)) };
}
