//! JSON Schema validation per action name (feature `schema`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::event::ActionError;
use crate::validate::{unknown_action, Validator};

/// Validates each action's arguments against its name's JSON Schema.
pub struct SchemaValidator {
    schemas: BTreeMap<String, jsonschema::Validator>,
}

impl std::fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.schemas.keys()).finish()
    }
}

impl SchemaValidator {
    /// Compiles a map of action names to schemas; on failure, the name and why.
    pub fn from_map(map: &BTreeMap<String, Value>) -> Result<Self, (String, String)> {
        let mut schemas = BTreeMap::new();
        for (name, schema) in map {
            let v = jsonschema::validator_for(schema).map_err(|e| (name.clone(), e.to_string()))?;
            schemas.insert(name.clone(), v);
        }
        Ok(SchemaValidator { schemas })
    }
}

impl Validator for SchemaValidator {
    fn validate(&self, name: &str, arguments: &Value) -> Vec<ActionError> {
        let Some(v) = self.schemas.get(name) else {
            return vec![unknown_action(name, &self.known())];
        };
        v.iter_errors(arguments)
            .map(|e| ActionError::at(e.instance_path.to_string().trim_start_matches('/'), e.to_string()))
            .collect()
    }

    fn known(&self) -> Vec<String> {
        self.schemas.keys().cloned().collect()
    }
}
