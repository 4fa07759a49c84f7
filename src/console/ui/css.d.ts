// esbuild bundles the stylesheet the entry imports; the import has no value.
declare module '*.css';
