/**
 * The system view's flag thresholds: validated at the boundary (the form and localStorage are
 * both untrusted), persisted per browser, with defaults that flag only the unmistakable.
 */
import { z } from 'zod';
import { SYSTEM_HISTORY_CAPACITY, SYSTEM_SAMPLE_MIN_MS } from './history';
import type { FlagSettings } from './trend';

export const FLAG_SETTINGS_STORAGE_KEY = 'treewarden.flags';
/** The longest look-back the system history holds (its ring: capacity × sample spacing). */
export const MAX_FLAG_MINUTES = Math.floor((SYSTEM_HISTORY_CAPACITY * SYSTEM_SAMPLE_MIN_MS) / 60_000);
/** A multi-threaded process can use several cores: 100 % per core, up to 64 cores. */
export const MAX_FLAG_CPU_PERCENT = 6400;
export const MAX_FLAG_GROWTH_MIB_PER_MINUTE = 100_000;

export const DEFAULT_FLAG_SETTINGS: FlagSettings = {
  cpuPercent: 90,
  cpuMinutes: 3,
  memoryMibPerMinute: 20,
  memoryMinutes: 5,
};

export const flagSettingsSchema = z
  .object({
    cpuPercent: z.number().min(1).max(MAX_FLAG_CPU_PERCENT),
    cpuMinutes: z.number().min(1).max(MAX_FLAG_MINUTES),
    memoryMibPerMinute: z.number().min(1).max(MAX_FLAG_GROWTH_MIB_PER_MINUTE),
    memoryMinutes: z.number().min(1).max(MAX_FLAG_MINUTES),
  })
  .strict();

/** Field-by-field limits, for the form's inputs and its error messages. */
export const FLAG_FIELD_LIMITS: Record<keyof FlagSettings, { min: number; max: number; label: string; unit: string }> =
  {
    cpuPercent: { min: 1, max: MAX_FLAG_CPU_PERCENT, label: 'CPU at least', unit: '%' },
    cpuMinutes: { min: 1, max: MAX_FLAG_MINUTES, label: 'for at least', unit: 'min' },
    memoryMibPerMinute: { min: 1, max: MAX_FLAG_GROWTH_MIB_PER_MINUTE, label: 'Memory growing', unit: 'MiB/min' },
    memoryMinutes: { min: 1, max: MAX_FLAG_MINUTES, label: 'over', unit: 'min' },
  };

/** Parses text the user typed into settings; each bad field gets its own message, nothing is half-applied. */
export function parseFlagSettings(
  input: Record<keyof FlagSettings, string>,
): { ok: true; settings: FlagSettings } | { ok: false; errors: Partial<Record<keyof FlagSettings, string>> } {
  const errors: Partial<Record<keyof FlagSettings, string>> = {};
  const values: Partial<FlagSettings> = {};
  for (const key of Object.keys(FLAG_FIELD_LIMITS) as Array<keyof FlagSettings>) {
    const { min, max } = FLAG_FIELD_LIMITS[key];
    const text = input[key].trim();
    const value = Number(text);
    if (text === '' || !Number.isFinite(value)) errors[key] = 'enter a number';
    else if (value < min || value > max) errors[key] = `between ${min} and ${max}`;
    else values[key] = value;
  }
  const parsed = flagSettingsSchema.safeParse(values);
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, settings: parsed.data };
}

export function loadFlagSettings(): FlagSettings {
  try {
    const stored = globalThis.localStorage?.getItem(FLAG_SETTINGS_STORAGE_KEY);
    if (!stored) return DEFAULT_FLAG_SETTINGS;
    const parsed = flagSettingsSchema.safeParse(JSON.parse(stored));
    // A stored value from another version or a hand edit that no longer fits: the defaults.
    return parsed.success ? parsed.data : DEFAULT_FLAG_SETTINGS;
  } catch {
    return DEFAULT_FLAG_SETTINGS; // storage disabled, or not JSON
  }
}

export function saveFlagSettings(settings: FlagSettings): void {
  try {
    globalThis.localStorage?.setItem(FLAG_SETTINGS_STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // not persisted; the thresholds still hold for this session
  }
}
