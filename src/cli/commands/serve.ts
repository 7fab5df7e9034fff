export async function serveCommand(_opts: unknown): Promise<void> {
  throw new Error('not built yet');
}
