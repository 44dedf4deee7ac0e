import { describe, expect, it } from 'vitest';
import { inventoryObjects, parseInventoryId } from '../../src/status/inventory.js';

describe('inventory ids', () => {
  it.each([
    ['apps_web_apps_Deployment', { kind: 'Deployment', namespace: 'apps', name: 'web', group: 'apps' }],
    ['_db__Namespace', { kind: 'Namespace', namespace: null, name: 'db', group: '' }],
    ['_pgs.acid.zalan.do_apiextensions.k8s.io_CustomResourceDefinition', { kind: 'CustomResourceDefinition', namespace: null, name: 'pgs.acid.zalan.do', group: 'apiextensions.k8s.io' }],
  ])('%s', (id, want) => expect(parseInventoryId(id)).toEqual(want));

  it('gives null for ids of another shape, and inventoryObjects leaves them out', () => {
    expect(parseInventoryId('a_b_c')).toBeNull();
    expect(parseInventoryId('a_b_c_d_e')).toBeNull();
    expect(parseInventoryId('ns__g_Kind')).toBeNull();
    expect(inventoryObjects({ status: { inventory: { entries: [{ id: 'x' }, { id: 'ns_cm__ConfigMap' }] } } }).map((o) => o.name)).toEqual(['cm']);
    expect(inventoryObjects(undefined)).toEqual([]);
  });
});
