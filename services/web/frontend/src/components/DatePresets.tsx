/** Today, the last 7 or 30 days, or all time, as toggle buttons (the pressed one is the range shown). */
import { PRESETS, type Preset } from '../stats-view';

export function DatePresets({ value, onChange, label }: { value: Preset | null; onChange: (preset: Preset) => void; label: string }) {
  return (
    <div className="presets" role="group" aria-label={label}>
      {PRESETS.map((preset) => (
        <button
          key={preset.id}
          type="button"
          className="button button-secondary"
          aria-pressed={value === preset.id}
          data-preset={preset.id}
          onClick={() => onChange(preset.id)}
        >
          {preset.label}
        </button>
      ))}
    </div>
  );
}
