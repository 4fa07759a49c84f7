// Release targets (--release-allow): which addresses the operator lets a captured message be sent on to. Pure.

/**
 * Compiles the operator's globs. `*` matches any run of characters within one part (never across the @); a glob
 * without @ matches the domain (`example.com`, `*.example.com`); `*` alone matches every address.
 */
export function releaseMatcher(globs: readonly string[]): (address: string) => boolean {
  const part = (g: string) => g.split('*').map(escapeRe).join('[^@]*');
  const res = globs.map((g) => {
    if (g === '*') return /^[^@]+@[^@]+$/;
    const at = g.indexOf('@');
    return at < 0 ? new RegExp(`^[^@]+@${part(g)}$`) : new RegExp(`^${part(g.slice(0, at))}@${part(g.slice(at + 1))}$`);
  });
  return (address) => {
    const a = address.trim().toLowerCase();
    return res.some((r) => r.test(a));
  };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
