// Building pages with the bundlers of the repository's devDependencies (Vite,
// esbuild) in a project where the packed package is installed: shared by
// bundlers.test.mjs and readme.test.mjs. The project's own node_modules holds
// only the tarballs (installed offline); the bundlers come from the repository's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes a file, making its folder. */
export function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Vite's options for a project folder: no config file, no public/ folder. */
export const viteOptions = (projectRoot) => ({ root: projectRoot, configFile: false, publicDir: false, logLevel: 'warn' });

/** `vite build` of one HTML page below `projectRoot` into `outDir`, with relative URLs
 * (base './') so that the output can be served from any folder. */
export async function viteBuild(projectRoot, input, outDir) {
  const { build } = await import('vite');
  await build({ ...viteOptions(projectRoot), base: './', build: { outDir, emptyOutDir: true, rollupOptions: { input } } });
}

/** An esbuild bundle (ES module) of `entry`, a file or a package specifier resolved from `project`. */
export async function esbuildBundle(project, entry, outfile) {
  const esbuild = await import('esbuild');
  await esbuild.build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', absWorkingDir: project, logLevel: 'warning' });
}
