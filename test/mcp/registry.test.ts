import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ALL_TOOLS } from '../../tools/index.js';
import { TOOLSETS } from '../../tools/types.js';
import { listedTools, parseToolFilter, selectTools } from '../../src/mcp/catalog.js';
import { PERMISSIONS } from '../../src/platform/permissions.js';

/** Spec §4.7: exactly these 51 tools. */
export const SPEC_TOOLS = [
  'rcs_send', 'rcs_send_batch', 'rcs_validate', 'rcs_validate_schedule_time',
  'sms_preview', 'sms_send',
  'rcs_preview',
  'list_sendernames',
  'rcs_health', 'rcs_limits', 'rcs_button_guidelines', 'rcs_timezones',
  'rcs_conversation_status',
  'rcs_batch_status', 'rcs_batch_cancel', 'rcs_jobs',
  'list_rcs_interactions', 'rcs_message_log', 'rcs_message_content',
  'list_contacts', 'count_contacts', 'get_contact', 'create_contact', 'update_contact', 'delete_contact', 'bulk_create_contacts', 'bulk_disable_contacts', 'bulk_enable_contacts',
  'list_groups', 'get_group', 'create_group', 'update_group', 'delete_group', 'add_contacts_to_group', 'remove_contacts_from_group',
  'list_custom_fields', 'create_custom_field', 'delete_custom_field', 'set_contact_custom_fields',
  'list_templates', 'get_template', 'create_template', 'update_template', 'delete_template',
  'list_template_groups', 'create_template_group', 'update_template_group', 'delete_template_group', 'assign_templates_to_template_group',
  'rcs_workflow_guide', 'rcs_api_reference',
] as const;

describe('the tool registry', () => {
  it('has exactly the 51 tools of the spec, each once', () => {
    expect(SPEC_TOOLS).toHaveLength(51);
    const names = ALL_TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...SPEC_TOOLS].sort());
  });

  describe.each(ALL_TOOLS.map((t) => [t.name, t] as const))('%s', (name, tool) => {
    it('is fully described', () => {
      expect(tool.title.length).toBeGreaterThan(3);
      expect(tool.description.length).toBeGreaterThan(60);
      expect(TOOLSETS).toContain(tool.toolset);
      for (const p of tool.permissions) expect(PERMISSIONS).toContain(p);
      const a = tool.annotations;
      for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect(typeof a[k]).toBe('boolean');
      // A tool that changes something needs a permission; reads of account data need one too,
      // except the service-wide references (limits, guidelines, guides, validation).
      if (!a.readOnlyHint) expect(tool.permissions.length).toBeGreaterThan(0);
      if (a.readOnlyHint) expect(a.destructiveHint).toBe(false);
      if (/^(delete_|rcs_batch_cancel|bulk_disable)/.test(name) || /^(rcs|sms)_send/.test(name)) expect(a.destructiveHint).toBe(true);
      if (/^(rcs|sms)_send/.test(name)) expect(a.openWorldHint).toBe(true);
    });

    it('has object input and output schemas without top-level unions', () => {
      const [listed] = listedTools({ toolsets: new Set([tool.toolset]), readOnly: false }).filter((t) => t.name === name);
      for (const schema of [listed!.inputSchema, listed!.outputSchema]) {
        expect(schema.type).toBe('object');
        expect(schema).not.toHaveProperty('oneOf');
        expect(schema).not.toHaveProperty('anyOf');
        expect(schema).not.toHaveProperty('allOf');
      }
      expect(tool.input).toBeInstanceOf(z.ZodObject);
      expect(tool.output).toBeInstanceOf(z.ZodObject);
    });

    it('matches its schema snapshot', async () => {
      const [listed] = listedTools({ toolsets: null, readOnly: false }).filter((t) => t.name === name);
      await expect(JSON.stringify({ name, title: listed!.title, annotations: listed!.annotations, _meta: listed!._meta, inputSchema: listed!.inputSchema, outputSchema: listed!.outputSchema }, null, 2) + '\n').toMatchFileSnapshot(`./__snapshots__/tools/${name}.json`);
    });
  });

  it('lists only the tools a set of permissions may call, and the service-wide reads always', () => {
    const all = listedTools({ toolsets: null, readOnly: false });
    const contactsRead = listedTools({ toolsets: null, readOnly: false }, new Set(['contacts:read']));
    expect(contactsRead.map((t) => t.name)).toContain('list_contacts');
    expect(contactsRead.map((t) => t.name)).toContain('rcs_validate');
    expect(contactsRead.map((t) => t.name)).not.toContain('create_contact');
    expect(contactsRead.map((t) => t.name)).not.toContain('rcs_send');
    expect(contactsRead.every((t) => ALL_TOOLS.find((d) => d.name === t.name)!.permissions.every((p) => p === 'contacts:read'))).toBe(true);
    expect(listedTools({ toolsets: null, readOnly: false }, new Set(PERMISSIONS))).toEqual(all);
  });

  it('filters by toolset and derives read-only mode from the annotations', () => {
    const contacts = selectTools(parseToolFilter({ toolsets: 'contacts' }));
    expect(contacts.length).toBeGreaterThan(0);
    expect(contacts.every((t) => t.toolset === 'contacts')).toBe(true);
    const ro = selectTools(parseToolFilter({ readonly: '1' }));
    expect(ro.every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(ro.map((t) => t.name)).toEqual(ALL_TOOLS.filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
    expect(ro.map((t) => t.name)).not.toContain('rcs_send');
    expect(() => parseToolFilter({ toolsets: 'nope' })).toThrow(/Unknown toolset/);
  });
});
