//! `memory`: simulated MCP server (being written).
