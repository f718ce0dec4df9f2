"""What every trainer shares: devices, atomic checkpoints, TensorBoard scalars, Ray actors."""
