// Constants shared by the viewer's modules (viewer*.js).
import { Vector3 } from 'three';

export const ENERGY_KEYS = ['kinetic', 'elastic', 'gravitational', 'total'];
export const CAMERA_MODES = [['fit', 'fit (initial pose)'], ['follow', 'follow COM'], ['free', 'free']];
export const Y_AXIS = new Vector3(0, 1, 0);
export const COM_COLOR = '#e07b00';
export const LAYERS = [['rods', true], ['cables', true], ['points', true], ['labels', false], ['forces', false], ['paths', true], ['cloud', true], ['grid', true]];
export const CLOUD_NONE_COLOR = '#868e96'; // cloud points without a value (a workspace's outside points)
export const CLOUD_HIGHLIGHT_COLOR = '#e8590c'; // highlighted cloud points (a workspace's boundary)
