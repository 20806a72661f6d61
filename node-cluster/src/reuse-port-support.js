// Whether server.listen({ reusePort: true }) exists here: Node >= 22.12 (23.x from 23.1) on Linux.
// Returns undefined when it does, else the reason in one sentence.
export function reusePortUnsupported({ version = process.versions.node, platform = process.platform } = {}) {
  const [major, minor] = version.split('.').map(Number);
  const nodeOk = major >= 24 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
  if (platform !== 'linux') return `reusePort is used here on Linux only, this is ${platform}`;
  if (!nodeOk) return `server.listen({ reusePort }) needs Node >= 22.12, this is Node ${version}`;
  return undefined;
}
