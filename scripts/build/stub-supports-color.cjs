'use strict';
// Stand-in for the optional `supports-color` package (probed by `debug` inside a try/catch). Aliased in by
// scripts/build.ts so the single executable never calls require() on a non-built-in module, which would print
// "Currently the require() provided to the main script embedded into single-executable applications only supports
// loading built-in modules" at every start. Reporting "no colour support" keeps debug output plain.
module.exports = { stdout: false, stderr: false };
