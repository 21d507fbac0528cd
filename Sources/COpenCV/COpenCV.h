// Intentionally empty: see module.modulemap. OpenCV's headers are C++ and are included by the shims.
