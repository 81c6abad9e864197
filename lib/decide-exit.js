'use strict';
// run.sh's exit codes decided (lib/decide.js's fourth part): the table of README's "exit | meaning", and
// which one a run that got to its end exits with. run.sh asks once, after its last step (node lib/decide.js
// --exit), and exits with the code printed; the EXIT trap's own codes (130 interrupted, 1 a step failed)
// and the refusals before anything starts (2, 3, 5, 6) are the table's too, which bash gets by name.
//
//   EXIT_CODES                 { outcome: code }, every code README's table lists
//   exitCodesShell() -> text   the table as bash assignments, one a line: EXIT_<OUTCOME>=<code>, the outcome
//                              in upper case with _ for - (EXIT_REFUSED=2, EXIT_INTERRUPTED=130); run.sh
//                              evaluates it once (node lib/decide.js --exit-codes, lib/decisions.sh) and
//                              exits by these names, never by a bare code of the table
//   runExit(facts) -> { outcome, code, message }   the exit of a run that ran every step; facts:
//       status          run.json's status: complete or incomplete
//       runjsonFailed   true when run.json could not be written
//       crashed         true when the server under test was found dead before run.sh stopped it
//       verdict         the validity verdict (docs/validity.md): failed means it measured nothing of the server
//       thresholdsFailed  true when a threshold failed (lib/thresholds.js)
//   In this order: an incomplete run (or run.json not written) exits 1, then a crash 4, then the verdict
//   failed 1, then a failed threshold 7; else 0. message: the line run.sh prints before it exits, or ''.

const EXIT_CODES = {
  complete: 0,
  incomplete: 1,           // a step failed, data stayed on a host, run.json not written
  'measured-nothing': 1,   // complete, but the validity verdict is failed
  refused: 2,              // bad arguments, settings or hosts file: nothing started
  'preflight-failed': 3,   // preflight or set-up failed: nothing started
  'server-crashed': 4,     // complete, but the server under test crashed
  busy: 5,                 // another run holds the state directory: nothing started
  stale: 6,                // a run killed beyond any trap waits for ./run.sh --stop-stale: nothing started
  'thresholds-failed': 7,  // complete, but a threshold failed
  interrupted: 130,        // Ctrl-C, SIGTERM, SIGHUP or SIGPIPE: everything stopped, results kept
};

const MESSAGES = {
  'measured-nothing': 'run failed: it measured nothing of the server (the verdict above; docs/validity.md)',
  'thresholds-failed': 'thresholds failed (above; results in junit.xml)',
};

function runExit({ status, runjsonFailed = false, crashed = false, verdict = '', thresholdsFailed = false }) {
  let outcome = 'complete';
  if (status !== 'complete' || runjsonFailed) outcome = 'incomplete';
  else if (crashed) outcome = 'server-crashed';
  else if (verdict === 'failed') outcome = 'measured-nothing';
  else if (thresholdsFailed) outcome = 'thresholds-failed';
  return { outcome, code: EXIT_CODES[outcome], message: MESSAGES[outcome] ?? '' };
}

// --exit's arguments, key=value (run.sh's RUN_* in the facts' names): status, runjson_failed, crashed,
// verdict, thresholds_failed; 1 or 0 for the flags.
function runExitFromArgs(args) {
  const kv = Object.fromEntries(args.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  const flag = (k) => kv[k] !== undefined && kv[k] !== '' && kv[k] !== '0';
  return runExit({ status: kv.status, runjsonFailed: flag('runjson_failed'), crashed: flag('crashed'), verdict: kv.verdict ?? '',
    thresholdsFailed: flag('thresholds_failed') });
}

const exitCodeName = (outcome) => `EXIT_${outcome.toUpperCase().replace(/-/g, '_')}`;

function exitCodesShell() {
  return Object.entries(EXIT_CODES).map(([outcome, code]) => `${exitCodeName(outcome)}=${code}\n`).join('');
}

module.exports = { EXIT_CODES, exitCodeName, exitCodesShell, runExit, runExitFromArgs };
