// What a worker prints while its settlement leader cannot reach the chain (workers/settlement/).

/**
 * Whether `output`, a worker's from some moment on, shows its settlement leader failing on the chain
 * a second time in a row: it failed, waited, and went back to the chain once (reconciling first), so
 * whatever it does while the chain fails it has done twice.
 */
export function settlementFailedTwice(output: string): boolean {
  return /"attempt":(?:[2-9]|\d{2,}),"message":"chain unreachable; settlement waits"/.test(output);
}
