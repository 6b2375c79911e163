// The native CLI when flags, sources, the model, its input or its output go
// wrong: a bad flag stops it at once (exit 2) naming the flag and what was given
// (a long value by its start and its size); a source that cannot be decoded, a
// line too long to hold, is reported on stderr with where it came from while
// the batch goes on (exit 1 at the end); input that cannot be read or output
// that cannot be written stops it with a message and exit 1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, describe, test } from 'node:test';
import { FIXTURES, cliPath, join } from './helpers.mjs';
import { dirname } from 'node:path';
import { OVERFLOWING, editedConfig } from './scaled-model.mjs';
import { readTable } from '../../scripts/gen-options.mjs';
import { readLimits } from '../../scripts/gen-limits.mjs';

const AR = join(FIXTURES, 'ar_post_sin_tied_relu.safetensors');
const CMLM = join(FIXTURES, 'cmlm_pre_sin_tied_relu.safetensors');

function run(args, input = '') {
  const r = spawnSync(cliPath(), args, { input, encoding: 'utf8', maxBuffer: 64 << 20 });  // an inside of --trace-inside is megabytes
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
const lines = (text) => text.split('\n').filter(Boolean);

describe('numeric flags are parsed against their ranges', () => {
  const cases = [
    [['--beam', '1e10'], "option --beam needs an integer in [1, 256], got '1e10'"],
    [['--beam', '300'], "option --beam needs an integer in [1, 256], got '300'"],
    [['--beam', '2.5'], "option --beam needs an integer in [1, 256], got '2.5'"],
    [['--beam', ''], "option --beam needs an integer in [1, 256], got ''"],
    [['--beam', '99999999999999999999'], "option --beam needs an integer in [1, 256], got '99999999999999999999'"],
    [['--sample', '--seed', '-1'], "option --seed needs an integer in [0, 18446744073709551615], got '-1'"],
    [['--sample', '--seed', '18446744073709551616'], "option --seed needs an integer in [0, 18446744073709551615], got '18446744073709551616'"],
    [['--sample', '--temperature', '1e40'], "option --temperature needs a number in (0, 100], got '1e40'"],
    [['--sample', '--temperature', '0'], "option --temperature needs a number in (0, 100], got '0'"],
    [['--sample', '--top-p', 'nan'], "option --top-p needs a number in (0, 1], got 'nan'"],
    [['--sample', '--top-p', '1e-50'], "option --top-p needs a number in (0, 1], got '1e-50'"],
    [['--max-length-ratio', 'inf'], "option --max-length-ratio needs a number in [0, 1000], got 'inf'"],
    [['--max-length', ' 5'], "option --max-length needs an integer in [1, 100000], got ' 5'"],
    [['--length-norm', 'gnmt', '--gnmt-alpha', '1e99'], "option --gnmt-alpha needs a number in [0, 10], got '1e99'"],
    [['--n-best', '-3'], "option --n-best needs an integer in [1, 256], got '-3'"],
    [['--nar', '--iterations', '0x10'], "option --iterations needs an integer in [1, 100], got '0x10'"],
  ];
  for (const [flags, message] of cases) {
    test(flags.join(' '), () => {
      const model = flags.includes('--nar') ? CMLM : AR;
      const r = run(['decode', '--model', model, ...flags, 'ABC']);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr, `seq2seq: ${message}\n`);
      assert.equal(r.stdout, '');
    });
  }
  test('values inside the ranges, at their ends, are taken', () => {
    const r = run(['decode', '--model', AR, '--sample', '--seed', '18446744073709551615', '--top-p', '1', '--temperature', '100', '--n-best', '2', 'ABC']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(lines(r.stdout).length, 2);
  });
});

describe('every option has its flag, --kebab-case of its C++ name, parsed against the table', () => {
  const table = readTable();
  for (const o of table.options.filter((x) => ['int', 'float'].includes(x.type))) {
    test(`${o.cli} beyond its range`, () => {
      const r = run(['decode', '--model', AR, o.cli, String(o.max + 1), 'ABC']);
      assert.equal(r.status, 2, r.stderr);
      const range = `${o.openMin ? '(' : '['}${o.min}, ${o.max}]`;
      assert.equal(r.stderr, `seq2seq: option ${o.cli} needs ${o.type === 'int' ? 'an integer' : 'a number'} in ${range}, got '${o.max + 1}'\n`);
    });
  }
  for (const o of table.options.filter((x) => x.type === 'enum')) {
    test(`${o.cli} takes the names of ${o.enum}, nothing else`, () => {
      const names = table.enums[o.enum].values.map((v) => v.js);
      const r = run(['decode', '--model', AR, o.cli, 'lookahead', 'ABC']);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr, `seq2seq: option ${o.cli} needs one of ${names.join(', ')}, got 'lookahead'\n`);
    });
  }
  test('bools have a flag and its --no- form; the shorthands the table declares work; old flags are gone', () => {
    for (const o of table.options.filter((x) => x.type === 'bool')) {
      for (const flag of [o.cli, `--no-${o.cli.slice(2)}`]) assert.equal(run(['decode', '--model', CMLM, flag, 'ABC']).status, 0, flag);
    }
    for (const sh of table.options.flatMap((o) => o.cliShorthand ?? [])) {
      const model = sh.sets.strategy === 'nar' || sh.sets.nar_length ? CMLM : AR;
      const r = run(['decode', '--model', model, ...(sh.sets.nar_length ? ['--nar'] : []), sh.flag, ...(sh.arg ? ['2'] : []), 'ABC']);
      assert.equal(r.status, 0, `${sh.flag}: ${r.stderr}`);
    }
    const given = run(['decode', '--model', CMLM, '--nar-length', 'given', '--nar-given-length', '4', 'ABC']);
    assert.equal(given.status, 0, given.stderr);
    assert.equal(lines(given.stdout)[0].split('\t')[1].split(' ').length, 4, 'exactly 4 positions');
    for (const old of [['--length', '4'], ['--length-penalty', 'none']]) {
      assert.equal(run(['decode', '--model', AR, ...old, 'ABC']).stderr, `seq2seq: unknown option '${old[0]}'\n`);
    }
  });
});

describe('a source that cannot be decoded does not stop the batch', () => {
  const flags = ['--max-length-ratio', '0.5', '--min-length', '3'];
  const tooShort = "input: max_length_ratio allows this source of length 1 at most 1 output tokens (EOS included): no room for min_length = 3";
  test('words: each failure names the word and its position; the rest are decoded; exit 1', () => {
    const r = run(['decode', '--model', AR, ...flags, 'ABCDEFG', 'A', 'AB#', 'FACADED']);
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(lines(r.stdout).map((l) => l.split('\t')[0]), ['ABCDEFG', 'FACADED']);
    assert.deepEqual(lines(r.stderr), [
      `seq2seq: word 2 'A': ${tooShort}`,
      "seq2seq: word 3 'AB#': input: character '#' at position 3 is not in the model's source alphabet",
    ]);
  });
  test('stdin: each failure names its line (blank lines counted, not decoded)', () => {
    const r = run(['decode', '--model', AR, ...flags], 'ABCDEFG\n\nA\r\nFACADED\nAB#\n');
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(lines(r.stdout).map((l) => l.split('\t')[0]), ['ABCDEFG', 'FACADED']);
    assert.deepEqual(lines(r.stderr), [
      `seq2seq: line 3 'A': ${tooShort}`,
      "seq2seq: line 5 'AB#': input: character '#' at position 3 is not in the model's source alphabet",
    ]);
  });
  test('--trace goes on too', () => {
    const r = run(['decode', '--model', AR, ...flags, '--trace', 'A', 'ABCDEFG']);
    assert.equal(r.status, 1, r.stderr);
    assert.ok(lines(r.stdout).every((l) => JSON.parse(l).source === 'ABCDEFG'));
    assert.match(r.stderr, /^seq2seq: word 1 'A': input: /);
  });
  test('a huge source is refused by its length and quoted cut short', () => {
    const r = run(['decode', '--model', AR], `${'A'.repeat(5_000_000)}\nABC\n${'A'.repeat(60_000)}\n`);
    assert.equal(r.status, 1, r.stderr.slice(0, 300));
    assert.deepEqual(lines(r.stderr), [
      `seq2seq: line 1 '${'A'.repeat(64)}...' (5000000 bytes): input: the text has 5000000 bytes (UTF-8); the longest accepted is 65536`,
      `seq2seq: line 3 '${'A'.repeat(64)}...' (60000 bytes): input: the source has 60000 characters; this model reads at most 32`,
    ]);
    assert.equal(lines(r.stdout).length, 1);
  });
  test('a minimum length no source leaves room for is an option error: at once, exit 2', () => {
    const r = run(['decode', '--model', AR, '--min-length', '40', '--max-length', '100', 'ABC', 'ABCDEF']);
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'seq2seq: min_length = 40 leaves no room below the max length of 32\n');
    assert.equal(r.stdout, '');
  });
});

describe('--trace-inside STEP: a pass that ran, of one model, on a trace', () => {
  const usage = (args, message) => {
    const r = run(args);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `seq2seq: ${message}\n`);
    assert.equal(r.stdout, '');
  };
  test('STEP is an integer of at least 1', () => {
    for (const v of ['0', '-1', '2.5', 'x', '', ' 3', '100001']) {
      usage(['decode', '--model', AR, '--trace', '--trace-inside', v, 'ABC'], `option --trace-inside needs an integer in [1, 100000], got '${v}'`);
    }
    usage(['decode', '--model', AR, '--trace', 'ABC', '--trace-inside'], 'option --trace-inside needs a value');
  });
  test('only with --trace, of decode, for one model', () => {
    usage(['decode', '--model', AR, '--trace-inside', '1', 'ABC'], '--trace-inside STEP adds to the lines of --trace: give --trace too');
    usage(['decode', '--model', AR, '--model', AR, '--trace', '--trace-inside', '1', 'ABC'],
      "--trace-inside shows one model's pass: an ensemble has no single inside");
    usage(['score', '--model', AR, '--trace-inside', '1', 'ABC', 'A'], "score has no --trace: it prints each token's log-probability");
    usage(['inspect', '--model', AR, '--trace-inside', '1', 'ABC'], 'inspect takes --model and --compute only');
  });
  test('a pass the decode never ran: the trace is printed, then the error; the next word goes on; exit 1', () => {
    for (const flags of [['--greedy'], ['--beam', '3'], ['--nar', '--iterations', '3']]) {
      const model = flags.includes('--nar') ? CMLM : AR;
      const n = lines(run(['decode', '--model', model, ...flags, '--trace', 'ABC']).stdout).length;
      const last = run(['decode', '--model', model, ...flags, '--trace', '--trace-inside', String(n), 'ABC']);
      assert.equal(last.status, 0, last.stderr);
      assert.deepEqual(lines(last.stdout).map((l) => 'inside' in JSON.parse(l)), [...Array(n - 1).fill(false), true]);
      const r = run(['decode', '--model', model, ...flags, '--trace', '--trace-inside', String(n + 1), 'ABC', 'ABC']);
      assert.equal(r.status, 1, r.stderr);
      assert.deepEqual(lines(r.stdout).map((l) => 'inside' in JSON.parse(l)), Array(2 * n).fill(false));
      const error = `--trace-inside ${n + 1} asks for a pass this decode never ran: it took ${n} decoder pass${n === 1 ? '' : 'es'}`;
      assert.deepEqual(lines(r.stderr), [`seq2seq: word 1 'ABC': ${error}`, `seq2seq: word 2 'ABC': ${error}`], flags.join(' '));
    }
  });
});

describe('weights that overflow float arithmetic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'seq2seq-cli-errors-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, bytes, where] of OVERFLOWING) {
    test(`${name}: every strategy reports each source, prints no empty or NaN line, exits 1`, () => {
      const path = join(dir, `${name.replace(/\W+/g, '-')}.safetensors`);
      writeFileSync(path, bytes());
      const strategies = name.startsWith('CMLM')
        ? [['--nar'], ['--nar', '--length-candidates', '3'], ['--nar', '--fixed-length'], ['--nar', '--nar-length', 'given', '--nar-given-length', '4']]
        : [['--greedy'], ['--beam', '3'], ['--sample', '--n-best', '2'], ['--beam', '2', '--trace']];
      for (const s of strategies) {
        const r = run(['decode', '--model', path, ...s, 'ABC', 'BAD']);
        assert.equal(r.status, 1, `${s.join(' ')}: ${r.stderr}`);
        const error = `model file: the scores of ${where} are not finite (NaN or infinity): the weights are too large for float arithmetic`;
        assert.deepEqual(lines(r.stderr), [`seq2seq: word 1 'ABC': ${error}`, `seq2seq: word 2 'BAD': ${error}`], s.join(' '));
        assert.doesNotMatch(r.stdout, /nan|\t\t/i, s.join(' '));
        if (!s.includes('--trace')) assert.equal(r.stdout, '', s.join(' '));
      }
      // inspect of the pass that decode refused refuses it with decode's words (it once printed
      // hundreds of nulls and exited 0). The length head is no part of a pass.
      if (where === 'the target lengths') return;
      const pass = name.startsWith('CMLM') ? ['<mask> <mask> <mask> <mask>'] : [];
      const r = run(['inspect', '--model', path, 'ABC', ...pass]);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr, `seq2seq: model file: the scores of ${where} are not finite (NaN or infinity): the weights are too large for float arithmetic\n`);
      assert.equal(r.stdout, '');
    });
  }
});

describe('inspect and --trace-inside keep what the pass computes, within a stated bound', () => {
  // The AR fixture read at 1,024 positions (its positions are sinusoidal: computed, not stored).
  const dir = mkdtempSync(join(tmpdir(), 'seq2seq-cli-inside-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const model = join(dir, 'ar-1024.safetensors');
  writeFileSync(model, editedConfig('ar_post_sin_tied_relu', (c) => { c.max_pos = 1024; }));
  const { maxInsideValues } = Object.fromEntries(readLimits().map(([k, v]) => [k, v]));
  const tooMany = /^input: the inside of this pass \(a source of 1024 positions, a decoder input of 1\) holds (\d+) numbers; inspect keeps at most (\d+): give a shorter source or fewer tokens$/;

  test('a pass over the bound (1,024 letters: decoded at once, its inside 28 million numbers) is an InputError, exit 1, nothing written', () => {
    const word = 'A'.repeat(1024);
    const r = run(['inspect', '--model', model, word]);
    assert.equal(r.status, 1, r.stderr.slice(0, 300));
    assert.equal(r.stdout, '');
    const m = tooMany.exec(r.stderr.replace(/^seq2seq: /, '').trimEnd());
    assert.ok(m, r.stderr);
    assert.ok(Number(m[1]) > maxInsideValues);
    assert.equal(Number(m[2]), maxInsideValues);
    // The decode itself is fine; --trace-inside of its first pass reports the word and goes on to the next.
    const t = run(['decode', '--model', model, '--greedy', '--max-length', '1', '--trace', '--trace-inside', '1', word, 'ABC']);
    assert.equal(t.status, 1, t.stderr.slice(0, 300));
    assert.equal(lines(t.stderr).length, 1);
    assert.ok(t.stderr.startsWith(`seq2seq: word 1 '${'A'.repeat(64)}...' (1024 bytes): input: the inside of this pass`), t.stderr);
    assert.deepEqual(lines(t.stdout).map((l) => [JSON.parse(l).source, 'inside' in JSON.parse(l)]), [['ABC', true]]);
  });

  test('a pass within the bound is streamed: under a 60 MB address-space limit, 87 MB of JSON; one over the memory is "out of memory", exit 1', () => {
    // Held as one JSON document, the 400-letter inside took over 150 MB and ended in
    // `terminate called after throwing std::bad_alloc` (exit 134): the document, failing to
    // allocate, allocated again while destroying itself.
    // The document's end: the decoder stack's last field, then the inside's (a model without the copy mechanism).
    const script = 'ulimit -v 60000; "$0" inspect --model "$1" "$2" | tail -c 37; echo " ${PIPESTATUS[0]}"';
    const streamed = spawnSync('bash', ['-c', script, cliPath(), model, 'A'.repeat(400)], { encoding: 'utf8' });
    assert.equal(streamed.stderr, '');
    assert.equal(streamed.stdout, ',"hasFinalNorm":false},"copy":false}\n 0\n');
    // Near the bound the inside alone (16 million numbers, 64 MB) is more than the limit leaves.
    const over = spawnSync('bash', ['-c', script, cliPath(), model, 'A'.repeat(700)], { encoding: 'utf8' });
    assert.equal(over.stderr, 'seq2seq: out of memory\n');
    assert.equal(over.stdout, ' 1\n');
  });
});

test('the CLI never aborts: a directory as the model is an error with exit 1', () => {
  const r = run(['info', FIXTURES]);
  assert.equal(r.signal, null);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^seq2seq: /);
});

test('info names the kernels in use; SEQ2SEQ_ISA picks one the build carries, anything else is an error (exit 2)', () => {
  const runWith = (isa) => {
    const r = spawnSync(cliPath(), ['info', AR], { encoding: 'utf8', env: { ...process.env, SEQ2SEQ_ISA: isa } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const plain = runWith('');
  assert.equal(plain.status, 0, plain.stderr);
  const m = /^kernels: +(\S+)(?: \(of ([^;]+); SEQ2SEQ_ISA picks one\))?$/m.exec(plain.stdout);
  assert.ok(m, plain.stdout);
  const carried = m[2] ? m[2].split(' ') : [m[1]];
  assert.ok(carried.includes(m[1]), `${m[1]} among ${carried}`);
  for (const isa of carried) {
    const r = runWith(isa);
    if (r.status === 0) assert.match(r.stdout, new RegExp(`^kernels: +${isa.replace('.', '\\.')}( |$)`, 'm'));
    else {
      assert.equal(r.status, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`seq2seq: SEQ2SEQ_ISA=${isa}: this CPU cannot run it; it runs `), r.stderr);
    }
  }
  const bad = runWith('avx9000');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr.trim(), `seq2seq: SEQ2SEQ_ISA=avx9000 is not an instruction set this build carries (${carried.join(', ')})`);
  assert.equal(bad.stdout, '');
});

describe('long values are quoted by their start and their size', () => {
  test('a flag\'s value, an unknown flag, a word without a target', () => {
    const long = 'x'.repeat(100_000);
    const quoted = `'${'x'.repeat(64)}...' (100000 bytes)`;
    for (const [args, message] of [
      [['decode', '--model', AR, '--beam', long, 'ABC'], `option --beam needs an integer in [1, 256], got ${quoted}`],
      [['decode', '--model', AR, '--strategy', long, 'ABC'], `option --strategy needs one of greedy, beam, sample, nar, got ${quoted}`],
      [['decode', '--model', AR, '--compute', long, 'ABC'], `compute must be 'auto' or 'f32', not ${quoted}`],
      [['decode', '--model', AR, `--${long}`, 'ABC'], `unknown option '--${'x'.repeat(62)}...' (100002 bytes)`],
      [['score', '--model', AR, long], `score takes WORD TARGET pairs; ${quoted} has no target`],
    ]) {
      const r = run(args);
      assert.equal(r.status, 2, r.stderr.slice(0, 300));
      assert.equal(r.stderr, `seq2seq: ${message}\n`);
    }
  });
});

test('a byte that is no part of a UTF-8 character is quoted as an escape, as a control character is: every message is UTF-8', () => {
  // inspect's TOKENS, decode's word and prefix: each message once echoed the raw byte 0xFF.
  const script = `b=$(printf 'A\\377'); "$0" inspect --model "$1" ABC "$b"; "$0" decode --model "$1" "$b"; "$0" decode --model "$1" --prefix "$b" ABC`;
  const r = spawnSync('bash', ['-c', script, cliPath(), AR]);
  assert.equal(r.status, 1);
  const stderr = r.stderr.toString('latin1');
  assert.ok(!stderr.includes('\xff'), stderr);
  assert.deepEqual(lines(stderr), [
    "seq2seq: input: target token 'A\\xFF' is not in the model's target vocabulary",
    "seq2seq: word 1 'A\\xFF': input: text is not valid UTF-8 (byte 1)",
    "seq2seq: word 1 'ABC': input: target token 'A\\xFF' is not in the model's target vocabulary",
  ]);
});

describe('score takes a pair of arguments as given', () => {
  test('a TAB in a WORD is a character of the word (no model reads it), not a column: the pair is not split again', () => {
    const r = run(['score', '--model', AR, 'AB\tAE', 'B D', 'ABC', 'AE\tB']);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stderr, "seq2seq: pair 1 'AB\\x09AE' 'B D': input: character control character 0x9 at position 3 is not in the model's source alphabet\n");
    // A TAB in a TARGET separates tokens, as a space does.
    assert.deepEqual(lines(r.stdout).map((l) => l.split('\t').slice(0, 2)), [['ABC', 'AE B']]);
  });
});

describe('input that cannot be held or read is no end of input', () => {
  test('a line too long to hold (300 MB, under a 400 MB address-space limit) is reported by its number; the lines after it are decoded', () => {
    // Read into memory, such a line once failed the read, which ended the loop as the end of input would: exit 0, FACADE never decoded.
    const script = `ulimit -v 400000; { printf 'ABC\\n'; head -c 300000000 /dev/zero | tr '\\0' A; printf '\\nFACADE\\n'; } | "$0" decode --model "$1"`;
    const t0 = performance.now();
    const r = spawnSync('bash', ['-c', script, cliPath(), AR], { encoding: 'utf8' });
    const ms = performance.now() - t0;
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(lines(r.stdout).map((l) => l.split('\t')[0]), ['ABC', 'FACADE']);
    assert.equal(r.stderr, `seq2seq: line 2 '${'A'.repeat(64)}...' (300000000 bytes): input: the text has 300000000 bytes (UTF-8); the longest accepted is 65536\n`);
    assert.ok(ms < 10_000, `${ms.toFixed(0)} ms`);
  });
  test('score: a line longer than a text and a target can be, likewise', () => {
    const r = run(['score', '--model', AR], `ABC\tAE B\nABC\t${'AE '.repeat(22_000)}\n${'A'.repeat(140_000)}\tAE\nABC\tAE\n`);
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(lines(r.stdout).map((l) => l.split('\t').slice(0, 2).join(' | ')), ['ABC | AE B', 'ABC | AE']);
    assert.deepEqual(lines(r.stderr), [
      `seq2seq: line 2 'ABC\\x09${'AE '.repeat(20)}...' (66004 bytes): input: the target has 66000 bytes (UTF-8); the longest accepted is 65536`,
      `seq2seq: line 3 '${'A'.repeat(64)}...' (140003 bytes): input: the line has 140003 bytes; the longest accepted is 131073 (a text and a target of at most 65536 bytes each, and the TAB between)`,
    ]);
  });
  test('a read that fails (stdin a directory) stops with the line it was reading, exit 1', () => {
    for (const command of ['decode', 'score']) {
      const fd = openSync(FIXTURES, 'r');
      try {
        const r = spawnSync(cliPath(), [command, '--model', AR], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
        assert.equal(r.status, 1, r.stderr);
        assert.equal(r.stderr, 'seq2seq: cannot read line 1 of the input: Is a directory\n');
      } finally {
        closeSync(fd);
      }
    }
  });
});

describe('output that cannot be written: exit 1 and a message', () => {
  const commands = [['decode', '--model', AR, 'ABC', 'FACADE'], ['score', '--model', AR, 'ABC', 'AE B'], ['inspect', '--model', AR, 'ABC'], ['info', AR], ['--help']];
  test('a full disk (stdout /dev/full)', () => {
    for (const args of commands) {
      const fd = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(cliPath(), args, { stdio: ['pipe', fd, 'pipe'], encoding: 'utf8' });
        assert.equal(r.status, 1, `${args[0]}: ${r.stderr}`);
        assert.equal(r.stderr, 'seq2seq: cannot write the output: No space left on device\n', args[0]);
      } finally {
        closeSync(fd);
      }
    }
  });
  test('stdout closed: a pipe whose reader has gone, and no stdout at all', () => {
    for (const args of commands) {
      // The pipe's only reader closes it and exits before the CLI is started (it waits
      // for the reader's flag file): its first write meets EPIPE, whatever the load on
      // the machine. Its status comes back as bash's PIPESTATUS: 141 would be a SIGPIPE death.
      const flag = join(mkdtempSync(join(tmpdir(), 'seq2seq-epipe-')), 'closed');
      const piped = spawnSync('bash', ['-c', 'f=$1; shift; { while [ ! -e "$f" ]; do sleep 0.01; done; exec "$@"; } | { exec 0<&-; : > "$f"; }; exit ${PIPESTATUS[0]}',
        'bash', flag, cliPath(), ...args], { encoding: 'utf8', timeout: 60_000 });
      rmSync(dirname(flag), { recursive: true, force: true });
      assert.equal(piped.signal, null, `${args[0]}: killed by ${piped.signal}`);
      assert.equal(piped.status, 1, `${args[0]}: status ${piped.status}: ${piped.stderr}`);
      assert.equal(piped.stderr, 'seq2seq: cannot write the output: Broken pipe\n', args[0]);
      const closed = spawnSync('bash', ['-c', 'exec "$@" >&-', 'bash', cliPath(), ...args], { encoding: 'utf8' });
      assert.equal(closed.status, 1, `${args[0]}: ${closed.stderr}`);
      assert.equal(closed.stderr, 'seq2seq: cannot write the output: Bad file descriptor\n', args[0]);
    }
  });
  test('a failed write stops a long batch at once rather than decoding on', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const t0 = performance.now();
      const r = spawnSync(cliPath(), ['decode', '--model', AR, '--trace'], { stdio: ['pipe', fd, 'pipe'], input: 'FACADE\n'.repeat(20_000), encoding: 'utf8' });
      assert.ok(performance.now() - t0 < 5000, `${(performance.now() - t0).toFixed(0)} ms: the batch went on`);
      assert.equal(r.status, 1);
      assert.equal(r.stderr, 'seq2seq: cannot write the output: No space left on device\n');
    } finally {
      closeSync(fd);
    }
  });
});
