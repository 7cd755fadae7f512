// Package controllers stands in for sigs.k8s.io/mcs-api/controllers, which the Go module proxy serves at no
// version. Cilium's operator uses one name from it, this constant (mcs-api's controllers/endpointslice.go).
package controllers

// DerivedServiceAnnotation names the Service derived from a ServiceImport.
const DerivedServiceAnnotation = "multicluster.kubernetes.io/derived-service"
