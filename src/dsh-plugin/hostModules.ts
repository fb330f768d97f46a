import type { Ctx } from './types';

// A real dynamic import, even in the CommonJS bundle (esbuild keeps a non-literal import()).
export const dynamicImport = (specifier: string): Promise<any> => import(specifier);

/**
 * A package as the host itself loaded it: `ctx.get('loader').import(...)` when the host runs the
 * cordis Loader (so the module shares the host's cordis, dsh-tools, ...), else a plain `import()`.
 * `loader.import()` reads `this.ctx.loader`, and a service only resolves in a context that
 * injects it: so import from a short-lived child fiber that injects `loader`.
 */
export async function importHostModule(ctx: Ctx, specifier: string): Promise<unknown> {
  if (!ctx.get('loader')) return dynamicImport(specifier);
  let result: Promise<unknown> | undefined;
  const fiber = ctx.plugin({
    name: 'dsh-bridge-loader',
    inject: ['loader'],
    apply: (c: Ctx & { loader: { import(name: string): Promise<unknown>; unwrapExports?(ns: unknown): unknown } }) => {
      result = c.loader.import(specifier).then((ns) => (typeof c.loader.unwrapExports === 'function' ? c.loader.unwrapExports(ns) : ns));
    },
  });
  try {
    await fiber;
    if (!result) throw new Error('the loader was not available');
    return await result;
  } finally {
    await Promise.resolve(fiber.dispose()).catch(() => undefined);
  }
}
