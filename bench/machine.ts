import fs from 'node:fs';
import os from 'node:os';

/**
 * What this machine is, read from it at run time (os module, /proc/cpuinfo, the cgroup's limits)
 * rather than written down: the bench runs on whatever machine the project is moved to.
 */
export interface MachineFacts {
  cpuModel: string;
  /** /proc/cpuinfo's family and model numbers: a bare "AMD EPYC" names no generation. */
  cpuFamilyModel: string | null;
  /** CPUs this process may use (`nproc`): what worker pools size themselves by. */
  cores: number;
  /** CPUs the kernel lists, in case a cgroup or affinity mask hides some. */
  listedCpus: number;
  mhz: number | null;
  /** Whether /proc/cpuinfo flags a hypervisor (a virtual machine: other guests share the host). */
  virtual: boolean;
  memGiB: number;
  /** The cgroup's memory limit when there is one below the machine's memory. */
  cgroupMemGiB: number | null;
  /** CPUs the cgroup's `cpu.max` quota allows, when it sets one. */
  cgroupCpus: number | null;
  kernel: string;
  arch: string;
}

/** First value of `key` in /proc/cpuinfo ("model name", "flags", ...). */
function cpuinfo(key: string): string | null {
  try {
    const m = fs.readFileSync('/proc/cpuinfo', 'utf8').match(new RegExp(`^${key}\\s*:\\s*(.*)$`, 'm'));
    return m?.[1]?.trim() ?? null;
  } catch {
    return null;
  }
}

function readTrimmed(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

export function machineFacts(): MachineFacts {
  const cpus = os.cpus();
  // "max" (no limit) or a missing file leave memMax NaN, so no limit is reported.
  const memMax = Number.parseInt(readTrimmed('/sys/fs/cgroup/memory.max') ?? '', 10);
  const [quota, period] = (readTrimmed('/sys/fs/cgroup/cpu.max') ?? 'max').split(' ').map(Number);
  return {
    cpuModel: cpuinfo('model name') ?? cpus[0]?.model ?? 'unknown CPU',
    cpuFamilyModel:
      cpuinfo('cpu family') && cpuinfo('model')
        ? `family ${cpuinfo('cpu family')}, model ${cpuinfo('model')}`
        : null,
    cores: os.availableParallelism(),
    listedCpus: cpus.length,
    // os.cpus() reads cpufreq, which a virtual machine often lacks; cpuinfo has the nominal clock.
    mhz: cpus[0]?.speed || Math.round(Number(cpuinfo('cpu MHz'))) || null,
    virtual: (cpuinfo('flags') ?? '').split(' ').includes('hypervisor'),
    memGiB: os.totalmem() / 2 ** 30,
    cgroupMemGiB: Number.isFinite(memMax) && memMax < os.totalmem() ? memMax / 2 ** 30 : null,
    cgroupCpus: quota && period && Number.isFinite(quota) ? quota / period : null,
    kernel: `${os.type()} ${os.release()}`,
    arch: os.arch(),
  };
}

/** One line for RESULTS.md. */
export function machineLine(m: MachineFacts = machineFacts()): string {
  const parts = [
    `${m.cores} cores usable (${m.listedCpus} listed)`,
    `${m.cpuModel}${m.cpuFamilyModel ? ` (${m.cpuFamilyModel})` : ''}${m.mhz ? ` at ${m.mhz} MHz` : ''}` +
      `${m.virtual ? ', a virtual machine' : ''}`,
    `${m.memGiB.toFixed(1)} GiB RAM`,
    ...(m.cgroupMemGiB !== null ? [`cgroup memory limit ${m.cgroupMemGiB.toFixed(1)} GiB`] : []),
    ...(m.cgroupCpus !== null ? [`cgroup CPU quota ${m.cgroupCpus.toFixed(1)}`] : []),
    `${m.kernel} ${m.arch}`,
  ];
  return `- Machine (read at run time): ${parts.join(', ')}`;
}
