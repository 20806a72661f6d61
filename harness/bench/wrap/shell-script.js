// What a start script is, as sh reads it: parsed by mvdan-sh (the parser of shfmt, POSIX mode), never
// expanded here — the shell expands it when it runs. Two questions only: is it one simple command
// (`[NAME=value …] [exec] program args…`, no list, pipeline, redirection, background or command
// substitution), whose program the entry probe may run under its `node` shim; and where `exec` goes so
// that sh hands its process to the last command, as bash does by itself and dash does not (a server
// under `sh -c` would otherwise run as the shell's child, and SIGTERM would stop only the shell).
import { createRequire } from 'node:module';

const { syntax } = createRequire(import.meta.url)('mvdan-sh');
const parser = syntax.NewParser(syntax.Variant(syntax.LangPOSIX));

// Word parts that run a command while the shell expands the word.
const RUNS_A_COMMAND = new Set(['CmdSubst', 'ProcSubst']);

const offset = (node) => node.Pos().Offset();
const endOffset = (node) => node.End().Offset();

function runsACommand(node) {
  let found = false;
  syntax.Walk(node, (n) => {
    if (n && RUNS_A_COMMAND.has(syntax.NodeType(n))) found = true;
    return !found;
  });
  return found;
}

// A list's or a pipeline's operator as written: `&&`, `||`, `|`.
const operatorOf = (text, cmd) => text.slice(endOffset(cmd.X), offset(cmd.Y)).trim();

function describe(text, stmt) {
  const type = syntax.NodeType(stmt.Cmd);
  if (stmt.Background) return 'a command run in the background (&)';
  if (stmt.Redirs.length) return 'a command with a redirection';
  if (type === 'BinaryCmd') {
    const op = operatorOf(text, stmt.Cmd);
    return op.startsWith('|') && op !== '||' ? 'a pipeline' : `a list of commands (${op})`;
  }
  if (type !== 'CallExpr') return `a compound command (${type})`;
  if (runsACommand(stmt.Cmd)) return 'a command with a command substitution';
  return null;
}

// The simple command whose process the script ends in: the last statement, or the right of its last
// && / ||. Null where that is not a plain CallExpr (a pipeline, a subshell, a redirection …).
function lastCommand(text, stmt) {
  if (stmt.Background || stmt.Negated || stmt.Redirs.length) return null;
  const type = syntax.NodeType(stmt.Cmd);
  if (type === 'CallExpr') return stmt.Cmd.Args.length ? stmt.Cmd : null;
  if (type === 'BinaryCmd' && ['&&', '||'].includes(operatorOf(text, stmt.Cmd))) return lastCommand(text, stmt.Cmd.Y);
  return null;
}

/**
 * @typedef {object} ScriptShape
 * @property {boolean} empty        nothing to run (blank, or only comments)
 * @property {string | null} compound  what makes it more than one simple command, in words; null if simple
 * @property {{ text: string, literal: boolean } | null} program  the simple command's program word, as
 *   written (literal: no quote or expansion in it); null when compound, or when it only assigns variables
 * @property {string} execScript    the script with `exec ` before its last command's program
 */

/** @param {string} text @returns {ScriptShape} */
export function shapeOf(text) {
  let file;
  try {
    file = parser.Parse(text, 'script');
  } catch (err) {
    const said = typeof err?.Error === 'function' ? err.Error() : String(err?.message ?? err);
    throw new SyntaxError(`it is not valid sh: ${said.replace(/^script:/, 'at ')}`, { cause: err });
  }
  const stmts = file.Stmts;
  if (!stmts.length) return { empty: true, compound: null, program: null, execScript: text };
  const compound = stmts.length > 1 ? 'a list of commands (; or a newline)' : describe(text, stmts[0]);
  const call = compound ? null : stmts[0].Cmd;
  const first = call?.Args[0];
  const skipExec = first && first.Lit() === 'exec' ? call.Args[1] : first;
  const program = skipExec
    ? { text: text.slice(offset(skipExec), endOffset(skipExec)), literal: skipExec.Lit() !== '' }
    : null;
  const last = lastCommand(text, stmts.at(-1));
  const execScript = last && last.Args[0].Lit() !== 'exec'
    ? `${text.slice(0, offset(last.Args[0]))}exec ${text.slice(offset(last.Args[0]))}`
    : text;
  return { empty: false, compound, program, execScript };
}
