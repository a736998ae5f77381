/**
 * The New Run form's "Run in its own cgroup" box. The host probes once at its start whether a
 * usable cgroup v2 parent exists (the same probe the engine asks before launch): where it does
 * the box is offered; where not, it is disabled and says the probe's reason, so nobody ticks a
 * box the engine would refuse.
 */
import type { CgroupCapability } from '@treewarden/protocol';

/** What the box says under its label, and whether it can be ticked. */
export function cgroupOffer(capability: CgroupCapability | undefined): { enabled: boolean; description: string } {
  if (capability === undefined)
    return { enabled: false, description: 'This host does not say whether cgroups are available here.' };
  if (!capability.available) return { enabled: false, description: `Not available here: ${capability.reason}.` };
  const controllers = capability.controllers.length === 0 ? 'no controllers' : capability.controllers.join(', ');
  return {
    enabled: true,
    description: `Exact process count and CPU time, and cgroup.kill after the tree kill. Under ${capability.path}/treewarden (${controllers}).`,
  };
}

export function CgroupField(props: {
  capability: CgroupCapability | undefined;
  checked: boolean;
  onChange(checked: boolean): void;
}) {
  const offer = cgroupOffer(props.capability);
  return (
    <label className="field field-check">
      <span className="check-line">
        <input
          type="checkbox"
          name="cgroup"
          checked={offer.enabled && props.checked}
          disabled={!offer.enabled}
          aria-describedby="cgroup-description"
          onChange={(e) => props.onChange(e.target.checked)}
        />
        Run in its own cgroup
      </span>
      <span id="cgroup-description" className="muted" data-testid="cgroup-description">
        {offer.description}
      </span>
    </label>
  );
}
