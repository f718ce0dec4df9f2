"""Training loops for the learned models, with resumable checkpoints and TensorBoard logs."""
