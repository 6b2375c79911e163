// Building pages with the bundlers of the repository's devDependencies (Vite,
// esbuild, webpack, Parcel, Rollup), through their JS APIs, in a project where
// the packed package is installed: shared by bundlers.test.mjs and
// readme.test.mjs. The project's own node_modules holds only the tarballs
// (installed offline); the bundlers come from the repository's. No build
// minifies: what is tested is how each finds (or misses) the engine's files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Writes a file, making its folder. */
export function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Vite's options for a project folder: no config file, no public/ folder. */
export const viteOptions = (projectRoot) => ({ root: projectRoot, configFile: false, publicDir: false, logLevel: 'warn' });

/** `vite build` of one HTML page below `projectRoot` into `outDir`, with relative URLs
 * (base './') so that the output can be served from any folder. Without the warning
 * that plugins took much of the build's time: under the tests' load they always may. */
export async function viteBuild(projectRoot, input, outDir) {
  const { build } = await import('vite');
  await build({ ...viteOptions(projectRoot), base: './', build: { outDir, emptyOutDir: true, rolldownOptions: { input, checks: { bundlerTimings: false } } } });
}

/** An esbuild bundle (ES module) of `entry`, a file or a package specifier resolved from `project`. */
export async function esbuildBundle(project, entry, outfile) {
  const esbuild = await import('esbuild');
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', absWorkingDir: project, logLevel: 'warning' });
}

/** webpack 5 with nothing configured but the entry (a path relative to `project`) and
 * the output folder: `--mode=development`, without its eval source maps. */
export async function webpackBuild(project, entry, outDir) {
  const { default: webpack } = await import('webpack');
  const stats = await new Promise((resolve, reject) => {
    webpack({ mode: 'development', devtool: false, context: project, entry, output: { path: outDir } },
      (error, result) => (error ? reject(error) : resolve(result)));
  });
  if (stats.hasErrors() || stats.hasWarnings()) throw new Error(stats.toString('errors-warnings'));
}

/** `parcel build` of an HTML page with Parcel's default configuration: scope hoisting
 * (which a page's top-level await needs), no minifying or source maps, no cache kept,
 * relative URLs, and no worker processes (PARCEL_WORKERS=0: for a page this small they
 * cost more than they save). Parcel takes its project root (where it reads package.json's
 * "@parcel/resolver-default" key) from the nearest lockfile above the page. */
export async function parcelBuild(project, entry, distDir) {
  const parcel = createRequire(require.resolve('parcel/package.json'));
  const { Parcel, createWorkerFarm } = await import(parcel.resolve('@parcel/core'));
  const workerFarm = createWorkerFarm({ maxConcurrentWorkers: 0 });
  const bundler = new Parcel({
    entries: [entry],
    defaultConfig: parcel.resolve('@parcel/config-default'),
    mode: 'production',
    shouldDisableCache: true,
    cacheDir: join(project, '.parcel-cache'),
    workerFarm,
    defaultTargetOptions: { distDir, publicUrl: './', shouldOptimize: false, sourceMaps: false },
  });
  try {
    await bundler.run();
  } catch (e) {
    throw new Error(`parcel: ${(e.diagnostics ?? [e]).map((d) => d.message).join('; ')}`, { cause: e });
  } finally {
    await workerFarm.end();
  }
}

/** Rollup 4 with @rollup/plugin-node-resolve (bare imports resolved from `project`) and
 * `plugins`; each input an entry chunk in `outDir`, ES modules. */
export async function rollupBuild(project, input, outDir, plugins = []) {
  const { rollup } = await import('rollup');
  const { default: nodeResolve } = await import('@rollup/plugin-node-resolve');
  const warnings = [];
  const bundle = await rollup({ input, plugins: [nodeResolve({ rootDir: project }), ...plugins], onwarn: (w) => warnings.push(w.message) });
  try {
    await bundle.write({ dir: outDir, format: 'es' });
  } finally {
    await bundle.close();
  }
  if (warnings.length) throw new Error(`rollup: ${warnings.join('; ')}`);
}
