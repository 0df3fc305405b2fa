/** CCM behaviour model: pure functions and tables describing what the Alibaba Cloud CCM does. */
export * from './ccm.constants';
export * from './ccm-version.util';
export * from './ccm-annotations.util';
export * from './ccm-service.util';
export * from './ccm-naming.util';
export * from './ccm-backends.util';
export * from './ccm-annotation-versions.constants';
export * from './ccm-annotation-versions.util';
export * from './ccm-ram-actions.constants';
export * from './ccm-ram-actions.util';
export * from './ccm-master-role.util';
export * from './ram-policy.util';
export * from './slb-quota.constants';
export * from './slb-quota.util';
