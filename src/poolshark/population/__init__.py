"""The population action model: features, decision data, imputation, network, trainer, agent."""
