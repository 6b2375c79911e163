// A C++ function name as a profile prints it, shortened for a table: template
// arguments and parameter lists dropped ('seq2seq::ArSearch::step', not its
// signature), `(anonymous namespace)::` kept.
export function shortName(s) {
  let prev;
  do { prev = s; s = s.replace(/<[^<>]*>/g, '').replace(/\([^()]*\)(?!::)/g, '()'); } while (s !== prev);
  return s.replace(/ const$/, '').replace(/(?<!operator)\(\)$/, '');
}
