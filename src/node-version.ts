/**
 * The oldest Node.js Herald runs on (package.json `engines`): 22.12 is the first 22 LTS that loads
 * ES modules through `require` without a flag, which dependencies rely on.
 */
export const MINIMUM_NODE = [22, 12] as const;

/** The one line an entry prints before refusing to start on an older Node.js, or undefined when it is new enough. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [needMajor, needMinor] = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return (
    `herald: Node.js ${needMajor}.${needMinor} or newer is required (this is ${version.replace(/^v/, '')}); ` +
    `install Node.js ${needMajor} LTS (https://nodejs.org, or \`nvm install ${needMajor}\`) and start again`
  );
}

// Imported first by every entry (main.ts, cli.ts), so it runs before any other module of Herald does.
const problem = unsupportedNode(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
