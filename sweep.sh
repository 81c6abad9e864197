#!/usr/bin/env node
'use strict';
// pushbench sweep: the study's 195 permutations (its section 4.2 and Appendix A) through ./run.sh,
// one after another (or one per lane at once: --lanes), resumable, ending with a comparison report.
// ./sweep.sh --help for the options.
//
//   ./sweep.sh --list                                   the run.sh command lines, in Appendix A's order
//   ./sweep.sh --yes                                    the whole study (600 s per run: about 37 hours)
//   ./sweep.sh --servers node --levels 1000 --duration 60 --rampup 10 --yes    a quick one
//   ./sweep.sh --dir sweeps/<date>                      resume an interrupted sweep
//   ./sweep.sh --target t.json --levels 1000,5000 --threshold 'trip.p99<=250' --yes   a target file at each level
//
// The logic lives in sweep/ (sweep/main.js); this file is Node.js too, so a sweep starts no shell.
require('./sweep/main.js').cli(process.argv.slice(2));
