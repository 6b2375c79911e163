// bench/relaxed-dot.mjs's Deno run: deno run --allow-read deno.js WASM_PATH ROUNDS; prints JSON.
import { measure } from './measure.js';

console.log(JSON.stringify(await measure(await Deno.readFile(Deno.args[0]), { rounds: Number(Deno.args[1]) })));
