/** Postgres' `undefined_table`, as postgres.js reports it (drizzle may wrap it as the cause). */
export function isUndefinedTable(error: unknown): boolean {
  const code = (value: unknown) => (value as { code?: unknown } | undefined)?.code;
  return (
    code(error) === "42P01" || code((error as { cause?: unknown } | undefined)?.cause) === "42P01"
  );
}
