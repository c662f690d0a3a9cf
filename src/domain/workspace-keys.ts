/** Host names compare case-insensitively and may end with the root dot: keep one spelling of each. */
export const normalizeDomains = (domains: string[] = []) => [
  ...new Set(domains.map((d) => d.toLowerCase().replace(/\.$/, ''))),
];
