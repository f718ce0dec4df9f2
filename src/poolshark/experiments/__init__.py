"""Experiment drivers above the models: the end-to-end demo pipeline and the robustness curve."""
