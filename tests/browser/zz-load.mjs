import { startServer, launch, openPage, waitReady } from './helpers.mjs';
import { execSync } from 'node:child_process';
const server = await startServer();
const b = await launch();
const cpu = () => Number(execSync(`ps -eo cputimes,args | grep -i chrom | grep -v grep | awk '{s+=$1} END {print s}'`).toString());
for (let i = 0; i < 4; i++) {
  const a = cpu(); const t = Date.now();
  const { page } = await openPage(b.context, server.url + (process.argv[2] ?? ''));
  await waitReady(page);
  const c = cpu();
  console.log(`load ${i}: ${Date.now() - t} ms, chromium cpu ${c - a} s (live processes only)`);
  await page.close();
}
await b.close(); await server.stop();
