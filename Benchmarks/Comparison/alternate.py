#!/usr/bin/env python3
"""Times two commands as whole processes, in turn (A B A B ...), after one warm-up run of each:
for each, the median wall time, CPU time (user + system) and peak memory of its largest process
(ru_maxrss of the waited child), and the wall-time ratio A/B pair by pair, so a comparison holds
while the machine's speed drifts. Output of the commands is thrown away.

    usage: alternate.py RUNS 'COMMAND A' 'COMMAND B'      (each command split as a shell splits words)
"""
import os, shlex, statistics, subprocess, sys, time


def run(command):
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    runs, commands = int(sys.argv[1]), [shlex.split(sys.argv[2]), shlex.split(sys.argv[3])]
    for command in commands:
        run(command)
    results = [[], []]
    for _ in range(runs):
        for index, command in enumerate(commands):
            results[index].append(run(command))
    for name, measured in zip("AB", results):
        wall, cpu, peak, codes = zip(*measured)
        print(f"{name}: wall {statistics.median(wall):.3f} s ({min(wall):.3f}-{max(wall):.3f}), cpu {statistics.median(cpu):.3f} s, "
              f"peak {statistics.median(peak):.0f} MB ({min(peak):.0f}-{max(peak):.0f}), exit codes {sorted(set(codes))}")
    ratios = [a[0] / b[0] for a, b in zip(*results)]
    print(f"A/B wall: median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) over {runs} pairs")


main()
